/**
 * What a path is when it is not a regular file, in the words every message uses
 * ("a FIFO (named pipe)", "a character device"...): the fake's data file, the
 * results file of a bulk add and the config file are refused with them.
 */
import type { BigIntStats, Stats } from "node:fs";

/** undefined for a regular file. */
export function nonRegularKind(info: Stats | BigIntStats): string | undefined {
  if (info.isFile()) return undefined;
  if (info.isDirectory()) return "a directory";
  if (info.isSymbolicLink()) return "a symbolic link";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isFIFO()) return "a FIFO (named pipe)";
  if (info.isSocket()) return "a socket";
  return "not a regular file";
}
