/**
 * Replacing a file whole, the one way petstore does it (the config, the state
 * file, and the files `serve` writes itself next to its data file: the data file,
 * the write-ahead log, the local CA and its key): `<file>.tmp` created anew (never
 * through a link, so new and ours from its first byte), flushed, renamed over the
 * name, and the directory flushed so that the rename survives a crash (not on
 * Windows, which cannot). A rename replaces the name, so a link at the target is
 * replaced, never written through.
 *
 * The files `serve` writes share one set of rules too: never followed through a
 * symlink (file-safety.ts), refused unless a regular file of this user with a
 * single name (where owners can be known).
 */
import { constants, copyFileSync, linkSync, rmSync, type BigIntStats, type Stats } from "node:fs";
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
  THIS_PLATFORM,
  type FilePlatform,
} from "./file-safety.js";

/** A file `serve` must not read nor write is under a name it uses; left as it was. */
export class UnsafeFileError extends KindedError {
  static override [ERROR_KIND] = "UnsafeFileError";
}

const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

/** Why `serve` must not use `file` (what is at the name, not followed), or undefined. */
export function companionProblem(file: string, info: Stats | BigIntStats): string | undefined {
  if (info.isSymbolicLink()) {
    return `${file} is a symbolic link; serve writes this file itself and never follows a symlink there.`;
  }
  const kind = nonRegularKind(info);
  if (kind !== undefined) return `${file} is ${kind}; serve writes a regular file under this name.`;
  const owner = ownershipProblem(info, { othersMay: "write" });
  if (owner?.kind === "owner") {
    return `${file} is owned by user ${owner.uid}, not by the user serve runs as (${owner.mine}).`;
  }
  if (Number(info.nlink) > 1) {
    return `${file} has ${info.nlink} names (hard links); writing it would change another file too.`;
  }
  return undefined;
}

function refuse(problem: string): UnsafeFileError {
  return new UnsafeFileError(`${problem} It was left untouched; remove it if it is not yours.`);
}

/** `info` (what is at `file`, undefined: nothing), unless serve must not use it. */
function checked<S extends Stats | BigIntStats>(file: string, info: S | undefined): S | undefined {
  const problem = info && companionProblem(file, info);
  if (problem) throw refuse(problem);
  return info;
}

/** The text of `file` and its stat (as opened); undefined when there is none. */
export function readCompanion(file: string): { text: string; stat: Stats } | undefined {
  if (checked(file, lstatIfThere(file)) === undefined) return undefined;
  let stat: Stats | undefined;
  const text = readNoFollow(file, (opened) => (stat = checked(file, opened)));
  return { text, stat: stat! };
}

/** Removes what an earlier write left at `file` (a regular file of ours); refuses anything else. */
export async function clearLeftover(file: string): Promise<void> {
  if (checked(file, lstatIfThere(file)) === undefined) return;
  await unlink(file).catch((error: unknown) => isMissing(error) || Promise.reject(error));
}

export interface AtomicWriteOptions {
  /** The permission bits of the new file, set exactly (the umask may take bits away). */
  mode?: number;
  /** Called once the new content is on disk; false declines: nothing is replaced. */
  beforeRename?: () => unknown;
  /** Where the new content is written first: `<file>.tmp` unless a writer without a lock names its own. */
  temporary?: string;
  platform?: FilePlatform;
}

/**
 * Replaces `file` whole with `chunks`, through `<file>.tmp` (a leftover there is
 * removed, or refused as `clearLeftover` says). Resolves to the stat of the new
 * file, or undefined when `beforeRename` declined.
 */
export async function writeFileAtomic(
  file: string,
  chunks: Iterable<string>,
  options: AtomicWriteOptions = {},
): Promise<BigIntStats | undefined> {
  const { mode, platform = THIS_PLATFORM } = options;
  const temporary = options.temporary ?? `${file}.tmp`;
  await clearLeftover(temporary);
  const handle = await openNoFollow(temporary, CREATE_NEW, mode ?? 0o666, platform);
  let stat: BigIntStats;
  try {
    try {
      if (mode !== undefined) await handle.chmod(mode);
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
  await syncDirectory(path.dirname(file), platform);
  return stat;
}

/**
 * Gives the file at `path` a second name, `backup` (replacing what was there):
 * the same bytes, never read or rewritten. Where hard links are not supported,
 * a copy.
 */
export function keepCopy(path: string, backup: string): void {
  // A crash between the two steps loses only the older copy: `path` stays as it is.
  rmSync(backup, { force: true });
  try {
    linkSync(path, backup);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV") throw error;
    copyFileSync(path, backup, constants.COPYFILE_EXCL);
  }
}
