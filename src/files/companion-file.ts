/**
 * The files `serve` writes itself next to the data file it was given: the
 * write-ahead log, the temporary files of a rewrite, the local CA and its key.
 * One set of rules for all of them: never followed through a symlink
 * (file-safety.ts), refused unless a regular file of this user with a single
 * name (where owners can be known), and replaced whole: `<file>.tmp` created
 * anew (never through a link, so new and ours from its first byte), flushed,
 * renamed over the name, and the directory flushed so that the rename survives
 * a crash (not on Windows, which cannot).
 */
import { constants, type BigIntStats } from "node:fs";
import { rename, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { ERROR_KIND, KindedError } from "../schema/kinded-error.js";
import { nonRegularKind } from "./file-kind.js";
import {
  isMissing,
  lstatIfThere,
  openNoFollow,
  ownershipProblem,
  readNoFollow,
  syncDirectory,
} from "./file-safety.js";

/** A file `serve` must not read nor write is under a name it uses; left as it was. */
export class UnsafeFileError extends KindedError {
  static override [ERROR_KIND] = "UnsafeFileError";
}

const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

/** Why `serve` must not use `file` (what is at the name, not followed), or undefined. */
export function companionProblem(file: string, info: BigIntStats): string | undefined {
  if (info.isSymbolicLink()) {
    return `${file} is a symbolic link; serve writes this file itself and never follows a symlink there.`;
  }
  const kind = nonRegularKind(info);
  if (kind !== undefined) return `${file} is ${kind}; serve writes a regular file under this name.`;
  const owner = ownershipProblem(info, { othersMay: "write" });
  if (owner?.kind === "owner") {
    return `${file} is owned by user ${owner.uid}, not by the user serve runs as (${owner.mine}).`;
  }
  if (info.nlink > 1n) {
    return `${file} has ${info.nlink} names (hard links); writing it would change another file too.`;
  }
  return undefined;
}

function refuse(problem: string): UnsafeFileError {
  return new UnsafeFileError(`${problem} It was left untouched; remove it if it is not yours.`);
}

/** The text of `file` and its stat; undefined when there is none. */
export async function readCompanion(
  file: string,
): Promise<{ text: string; stat: BigIntStats } | undefined> {
  const read = await readNoFollow(file);
  const problem = read && companionProblem(file, read.stat);
  if (problem) throw refuse(problem);
  return read as { text: string; stat: BigIntStats } | undefined;
}

/** Removes what an earlier write left at `file` (a regular file of ours); refuses anything else. */
export async function clearLeftover(file: string): Promise<void> {
  const info = lstatIfThere(file);
  const problem = info && companionProblem(file, info);
  if (problem) throw refuse(problem);
  if (info) await unlink(file).catch((error: unknown) => isMissing(error) || Promise.reject(error));
}

/**
 * Replaces `file` whole with `chunks`, through `<file>.tmp`; `mode`: its permission
 * bits, set exactly. `beforeRename` may still decline (false): then nothing is
 * replaced and the result is undefined; else it is the stat of the new file.
 */
export async function writeCompanion(
  file: string,
  chunks: Iterable<string>,
  options: { mode?: number; beforeRename?: () => unknown } = {},
): Promise<BigIntStats | undefined> {
  const temporary = `${file}.tmp`;
  await clearLeftover(temporary);
  const handle = await openNoFollow(temporary, CREATE_NEW, options.mode ?? 0o666);
  let stat: BigIntStats;
  try {
    try {
      if (options.mode !== undefined) await handle.chmod(options.mode);
      await writeFile(handle, chunks);
      await handle.sync();
      stat = await handle.stat({ bigint: true });
    } finally {
      await handle.close();
    }
    if ((await options.beforeRename?.()) === false) {
      await unlink(temporary);
      return undefined;
    }
    await rename(temporary, file);
  } catch (error) {
    // Removed, so that a full disk is not kept full by it.
    await unlink(temporary).catch(() => {});
    throw error;
  }
  await syncDirectory(path.dirname(file));
  return stat;
}
