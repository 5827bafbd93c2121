/**
 * What the store may open, and how: the data file must be a regular file (or not
 * exist yet); a symlinked data file is followed once, at start-up, to the real file,
 * which is then locked, logged ahead and rewritten in its own directory. The files the
 * store writes next to it (the write-ahead log and the temporary files of a rewrite) are
 * never followed through a symlink (files/file-safety.ts: O_NOFOLLOW, or its stand-in
 * on Windows), created anew, and refused when they are not a regular file of ours
 * (where owners can be known) with a single name. One process serves a file at a
 * time: `<file>.lock` holds the pid of the process serving it (files/file-lock.ts).
 */
import type { BigIntStats, Stats } from "node:fs";
import { lstat, readlink, realpath, unlink } from "node:fs/promises";
import path from "node:path";
import { nonRegularKind } from "../../files/file-kind.js";
import { acquireFileLock, describeRefusal } from "../../files/file-lock.js";
import {
  isMissing,
  lstatIfThereAsync,
  ownershipProblem,
  readNoFollow,
} from "../../files/file-safety.js";
import { StoreError } from "./types.js";

/**
 * The absolute path the store works on for the data file `given`: symlinks (of
 * the file and of its directories) resolved, so two names of the same file share
 * one lock. Refuses a data file that is not a regular file, and a symlink that
 * points nowhere.
 */
export async function resolveDataFile(given: string): Promise<string> {
  const absolute = path.resolve(given);
  const info = await lstatIfThereAsync(absolute);
  if (info === undefined) {
    const directory = path.dirname(absolute);
    const real = await realpath(directory).catch((error: unknown) => {
      if (!isMissing(error)) throw error;
      const remedy = "Create it or choose another file.";
      throw new StoreError(
        "io",
        `Cannot serve ${given}: the directory ${directory} does not exist. ${remedy}`,
      );
    });
    return path.join(real, path.basename(absolute));
  }
  let real: string;
  try {
    real = await realpath(absolute);
  } catch (error) {
    if (!info.isSymbolicLink()) throw error;
    const target = await readlink(absolute);
    const why =
      (error as NodeJS.ErrnoException).code === "ELOOP"
        ? "which leads back to itself. Fix the link, or give the real path."
        : "which does not exist. serve follows a symlinked data file only to an existing file: " +
          "create the file it points to (an empty file is a new store), or give the real path.";
    throw new StoreError(
      "unsafe_file",
      `Cannot serve ${given}: it is a symlink to ${target}, ${why}`,
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

/** Why serve must not write `file` (a name it writes next to the data file), or undefined. */
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

const refusal = (problem: string) =>
  `${problem} It was left untouched; remove it if it is not yours.`;

export function refuseCompanion(problem: string): StoreError {
  return new StoreError("unsafe_file", refusal(problem));
}

/**
 * Makes way for a new temporary file `file`: removes a leftover of an earlier
 * write (a regular file of ours), and refuses anything else under the name.
 */
export async function clearLeftover(file: string): Promise<void> {
  const info = await lstatIfThereAsync(file);
  const problem = info && companionProblem(file, info);
  if (problem) throw refuseCompanion(problem);
  if (info)
    await unlink(file).catch((error: unknown) => !isMissing(error) && Promise.reject(error));
}

/** Why the data file (`name` in messages) cannot be read now, or undefined. */
export const dataFileProblem = (name: string) => (info: BigIntStats) => {
  const kind = nonRegularKind(info);
  return kind && `${name} is now ${kind}, not a regular file.`;
};

/** Why a file serve writes itself cannot be read, or undefined. */
export const companionRefusal = (file: string) => (info: BigIntStats) => {
  const problem = companionProblem(file, info);
  return problem && refusal(problem);
};

/**
 * The text of `file` with the stat of the same open file; undefined when missing.
 * Never read through a symlink nor blocking on a FIFO put in its place; refused
 * (`unsafe_file`) when `problemOf` what is there says why.
 */
export async function readText(
  file: string,
  problemOf: (info: BigIntStats) => string | undefined,
): Promise<{ text: string; stat: BigIntStats } | undefined> {
  const read = await readNoFollow(file);
  const problem = read && problemOf(read.stat);
  if (problem) throw new StoreError("unsafe_file", problem);
  return read as { text: string; stat: BigIntStats } | undefined;
}

/** Takes the lock of `file` (named `name` in messages); resolves to its release. */
export async function acquireLock(
  file: string,
  name: string,
  log: (line: string) => void,
): Promise<() => Promise<void>> {
  const lockFile = `${file}.lock`;
  const attempt = acquireFileLock(lockFile, {
    onStale: (holder) =>
      log(
        holder === undefined
          ? `Removing the unreadable lock file ${lockFile}.`
          : holder === process.pid
            ? `Taking over ${lockFile}: it names this process (${holder}), which was given the pid of the stopped server that left it.`
            : `Taking over ${lockFile}: process ${holder}, which held it, is no longer running.`,
      ),
  });
  if (attempt.acquired) {
    const { lock } = attempt;
    return async () => lock.release();
  }
  const { problem, hint } = describeRefusal(lockFile, attempt, {
    cannot: `Cannot serve ${name}`,
    ifIdle: "If no server is running",
    held: (pid) =>
      `${name} is already being served by ${pid === process.pid ? `this process (${pid})` : `process ${pid}`} ` +
      `(lock file ${lockFile}). Stop that server or serve another file`,
  });
  throw new StoreError("locked", `${problem}. ${hint}.`);
}
