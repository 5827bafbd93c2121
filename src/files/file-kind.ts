/**
 * What a path is when it is not a regular file, in the words every message uses
 * ("a FIFO (named pipe)", "a character device"...): the fake's data file and its
 * TLS files, the results file of a bulk add and the config file are refused with them.
 */
import { lstatSync, readlinkSync, statSync, type BigIntStats, type Stats } from "node:fs";

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

/** Why a path a person gave could not be read, in a message's words: "no such file"... */
export function whyUnreadable(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  return code ?? (error instanceof Error ? error.message : String(error));
}

/**
 * Why `file`, a path a person gave (a symlink there is followed), is not a regular
 * file ("it is a symlink to x, which is a directory"); undefined when it is one,
 * or when nothing is there.
 */
export function whyNotRegular(file: string): string | undefined {
  let info: Stats | undefined;
  try {
    info = statSync(file, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ELOOP") throw error;
    return `it is a symlink to ${readlinkSync(file)}, which leads back to itself`;
  }
  const kind = info && nonRegularKind(info);
  if (kind === undefined) return undefined;
  const link = lstatSync(file).isSymbolicLink();
  return link ? `it is a symlink to ${readlinkSync(file)}, which is ${kind}` : `it is ${kind}`;
}
