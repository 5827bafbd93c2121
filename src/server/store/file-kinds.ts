/**
 * What the store may open, and how: the data file must be a regular file (or not
 * exist yet); a symlinked data file is followed once, at start-up, to the real file,
 * which is then locked, logged ahead and rewritten in its own directory. The files the
 * store writes next to it (the write-ahead log and the temporary files of a rewrite) are
 * never followed through a symlink (files/file-safety.ts: O_NOFOLLOW, or its
 * stand-in on Windows), created with O_EXCL, and refused when they are not a
 * regular file of ours (where owners can be known) with a single name.
 */
import { nonRegularKind } from "../../files/file-kind.js";
import { openNoFollow, ownershipProblem } from "../../files/file-safety.js";
import { constants, type BigIntStats, type Stats } from "node:fs";
import { lstat, readlink, realpath, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { isMissing } from "./durable.js";
import { StoreError } from "./types.js";

const { O_CREAT, O_EXCL, O_RDONLY, O_RDWR, O_WRONLY } = constants;

type AnyStats = Stats | BigIntStats;

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

async function lstatIfExists(file: string): Promise<Stats | undefined> {
  try {
    return await lstat(file);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/**
 * The absolute path the store works on for the data file `given`: symlinks (of
 * the file and of its directories) resolved, so two names of the same file share
 * one lock. Refuses a data file that is not a regular file, and a symlink that
 * points nowhere.
 */
export async function resolveDataFile(given: string): Promise<string> {
  const absolute = path.resolve(given);
  const info = await lstatIfExists(absolute);
  if (info === undefined) {
    const directory = path.dirname(absolute);
    try {
      return path.join(await realpath(directory), path.basename(absolute));
    } catch (error) {
      if (!isMissing(error)) throw error;
      throw new StoreError(
        "io",
        `Cannot serve ${given}: the directory ${directory} does not exist. Create it or choose another file.`,
      );
    }
  }
  let real: string;
  try {
    real = await realpath(absolute);
  } catch (error) {
    if (!info.isSymbolicLink()) throw error;
    const target = await readlink(absolute);
    if (errorCode(error) === "ELOOP") {
      throw new StoreError(
        "unsafe_file",
        `Cannot serve ${given}: it is a symlink to ${target}, which leads back to itself. ` +
          "Fix the link, or give the real path.",
      );
    }
    throw new StoreError(
      "unsafe_file",
      `Cannot serve ${given}: it is a symlink to ${target}, which does not exist. serve follows a ` +
        "symlinked data file only to an existing file: create the file it points to (an empty file " +
        "is a new store), or give the real path.",
    );
  }
  const kind = nonRegularKind(info.isSymbolicLink() ? await lstat(real) : info);
  if (kind !== undefined) {
    const what = info.isSymbolicLink()
      ? `it is a symlink to ${real}, which is ${kind}`
      : `it is ${kind}`;
    throw new StoreError(
      "unsafe_file",
      `Cannot serve ${given}: ${what}, not a regular file. Give a JSON file, or a path that does not exist yet.`,
    );
  }
  return real;
}

/**
 * Opens the data file for reading without following a symlink or blocking on a
 * FIFO that replaced it, and checks it is a regular file; undefined when missing.
 */
export async function openDataFile(file: string, name: string): Promise<FileHandle | undefined> {
  let handle: FileHandle;
  try {
    handle = await openNoFollow(file, O_RDONLY);
  } catch (error) {
    if (isMissing(error)) return undefined;
    if (errorCode(error) === "ELOOP") throw notRegular(name, "a symbolic link");
    throw error;
  }
  const kind = nonRegularKind(
    await handle.stat().catch(async (error: unknown) => {
      await handle.close();
      throw error;
    }),
  );
  if (kind !== undefined) {
    await handle.close();
    throw notRegular(name, kind);
  }
  return handle;
}

function notRegular(name: string, kind: string): StoreError {
  return new StoreError("unsafe_file", `${name} is now ${kind}, not a regular file.`);
}

/** Why serve must not write `file` (a name it writes next to the data file), or undefined. */
export function companionProblem(file: string, info: AnyStats): string | undefined {
  const kind = nonRegularKind(info);
  if (info.isSymbolicLink()) {
    return `${file} is a symbolic link; serve writes this file itself and never follows a symlink there.`;
  }
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

export function refuseCompanion(problem: string): StoreError {
  return new StoreError(
    "unsafe_file",
    `${problem} It was left untouched; remove it if it is not yours.`,
  );
}

/**
 * Opens (creating when missing) the write-ahead log `file` for reading and writing,
 * without following a symlink; refuses one that is not a regular file of ours
 * with a single name.
 */
export async function openWal(file: string): Promise<FileHandle> {
  const before = await lstatIfExists(file);
  const problem = before && companionProblem(file, before);
  if (problem) throw refuseCompanion(problem);
  let handle: FileHandle;
  try {
    handle = await openNoFollow(file, O_RDWR | O_CREAT, 0o666);
  } catch (error) {
    if (errorCode(error) === "ELOOP")
      throw refuseCompanion(companionProblem(file, await lstat(file))!);
    throw error;
  }
  try {
    const info = await handle.stat();
    const opened = companionProblem(file, info);
    if (opened) throw refuseCompanion(opened);
    if (before !== undefined && info.ino !== before.ino) {
      throw refuseCompanion(`${file} was replaced while serve was opening it.`);
    }
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Makes way for a new temporary file `file`: removes a leftover of an earlier
 * write (a regular file of ours), and refuses anything else under the name.
 */
export async function clearLeftover(file: string): Promise<void> {
  const info = await lstatIfExists(file);
  if (info === undefined) return;
  const problem = companionProblem(file, info);
  if (problem) throw refuseCompanion(problem);
  await unlink(file).catch((error: unknown) => {
    if (!isMissing(error)) throw error;
  });
}

/** Creates `file` for writing; fails if anything, a symlink included, has the name. */
export function createExclusive(file: string): Promise<FileHandle> {
  return openNoFollow(file, O_WRONLY | O_CREAT | O_EXCL, 0o666);
}

/** Opens a temporary file this process just created, for reading and writing, never via a symlink. */
export function reopenOwn(file: string): Promise<FileHandle> {
  return openNoFollow(file, O_RDWR);
}
