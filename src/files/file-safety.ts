/**
 * File safety, the one place that knows what each platform can check: opening a
 * file without following a link, whose file it is and who else may use it, and
 * flushing a directory's names. The config, the fake's store and CA, the results
 * file of a bulk add and the lock files all go through it (atomic writes:
 * atomic-write.ts; the lock: file-lock.ts), so a platform's gap is handled once.
 *
 * On POSIX (Linux, macOS):
 * - a link is never followed: O_NOFOLLOW makes the kernel refuse a symlink as the
 *   last component, in the same step as the open (ELOOP); O_NONBLOCK keeps a FIFO
 *   put there from blocking the open;
 * - the owner (st_uid against getuid()) and the permission bits are checked;
 * - a directory's names (a rename, a new file) are made durable by fsync on it.
 *
 * On Windows:
 * - O_NOFOLLOW does not exist. Instead lstat refuses a symlink or a junction (the
 *   reparse points lstat reports as links), and the opened file must be the very
 *   file lstat saw (same volume and file index), so a link swapped in between is
 *   refused too (ELOOP, as on POSIX). A new file is created with O_EXCL
 *   (CREATE_NEW), which fails on any existing name, a link included. Creating a
 *   symlink needs a privilege there (or developer mode).
 * - The owner and the permissions cannot be checked: they are ACLs, which Node
 *   cannot read (uid reads 0, the mode 0666, or 0444 when read-only). They are
 *   not checked; what stands in for them is where a file is: the per-user
 *   profile directory (%USERPROFILE%, which holds %APPDATA%) is private by its
 *   default ACL. `privateByDefault` says whether a path is inside it, so that a
 *   caller can say when it is not, rather than say nothing.
 * - A directory cannot be flushed (opening one fails with EISDIR, or fsync on it
 *   with EPERM): that step is skipped. NTFS writes its metadata (names, renames)
 *   to its own log, in order; see docs/serve.md for what that gives.
 *
 * The platform is a parameter (the running one by default) so that both
 * branches are tested on Linux.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  type BigIntStats,
  type Stats,
} from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import path from "node:path";

export interface FilePlatform {
  os: "posix" | "win32";
  /** The uid of this process; undefined where there are none (Windows). */
  uid: number | undefined;
}

export const THIS_PLATFORM: FilePlatform = {
  os: process.platform === "win32" ? "win32" : "posix",
  uid: process.getuid?.(),
};

const CREATE_NEW = constants.O_CREAT | constants.O_EXCL;

/** An exclusive create fails with EEXIST on any name, a link included, as O_NOFOLLOW leaves it. */
function refusesLinks(flags: number): boolean {
  return (flags & CREATE_NEW) !== CREATE_NEW;
}

/** The system error's code (ENOENT, ELOOP...), if it has one. */
export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Whether `error` says the file is not there. */
export function isMissing(error: unknown): boolean {
  return errorCode(error) === "ENOENT";
}

/** `flags` plus not following a link and not blocking on a FIFO, where the platform has them. */
export function noFollowFlags(flags: number, platform: FilePlatform = THIS_PLATFORM): number {
  if (platform.os === "win32") return flags;
  return flags | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
}

/** The error O_NOFOLLOW gives on POSIX, so that callers handle one error on both platforms. */
function linkRefused(file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ELOOP: a symbolic link is never followed, open '${file}'`), {
    code: "ELOOP",
    syscall: "open",
    path: file,
  });
}

function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return a.ino === b.ino && a.dev === b.dev;
}

/**
 * The check after an open on Windows: `opened` (the fstat of what was opened) must
 * be the file `before` is the lstat of, taken before the open; or, when there was
 * none (the open created it), the file now at the name, not a link planted meanwhile.
 */
function checkOpened(file: string, before: BigIntStats | undefined, opened: BigIntStats): void {
  const named = before ?? lstatIfThere(file);
  if (named === undefined || named.isSymbolicLink() || !sameFile(named, opened)) {
    throw linkRefused(file);
  }
}

/** The lstat of `file`; undefined when there is none. */
export function lstatIfThere(file: string): BigIntStats | undefined {
  try {
    return lstatSync(file, { bigint: true });
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/**
 * Opens `file` with `flags` (O_RDONLY, O_RDWR, O_CREAT, O_EXCL...) without
 * following a link at its name, nor blocking on a FIFO; a link there fails with
 * ELOOP on every platform.
 */
export function openNoFollowSync(
  file: string,
  flags: number,
  mode?: number,
  platform: FilePlatform = THIS_PLATFORM,
): number {
  if (platform.os !== "win32") return openSync(file, noFollowFlags(flags, platform), mode);
  const before = lstatIfThere(file);
  if (before?.isSymbolicLink() && refusesLinks(flags)) throw linkRefused(file);
  const fd = openSync(file, flags, mode);
  try {
    checkOpened(file, before, fstatSync(fd, { bigint: true }));
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** openNoFollowSync for node:fs/promises. */
export async function openNoFollow(
  file: string,
  flags: number,
  mode?: number,
  platform: FilePlatform = THIS_PLATFORM,
): Promise<FileHandle> {
  if (platform.os !== "win32") return open(file, noFollowFlags(flags, platform), mode);
  const before = lstatIfThere(file);
  if (before?.isSymbolicLink() && refusesLinks(flags)) throw linkRefused(file);
  const handle = await open(file, flags, mode);
  try {
    checkOpened(file, before, await handle.stat({ bigint: true }));
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * The text of `file`, opened without following a link at its name (ELOOP) nor
 * blocking on a FIFO put there; `check` sees what was opened before a byte is read,
 * and throws to refuse it (it must refuse anything but a regular file).
 */
export function readNoFollow(file: string, check: (opened: Stats) => void): string {
  const fd = openNoFollowSync(file, constants.O_RDONLY);
  try {
    check(fstatSync(fd));
    // One read into one string: what JSON.parse of a large file wants.
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

/** Who may use a file, as far as the platform lets it be known. */
export type OwnershipProblem =
  | { kind: "owner"; uid: number; mine: number }
  | { kind: "writable-by-others"; mode: number }
  | { kind: "readable-by-others"; mode: number };

export interface OwnershipRule {
  /** A file of root's is accepted too (a config an administrator set up). */
  rootMayOwn?: boolean;
  /** What the group and others may do with it: read (the default), write too, or nothing. */
  othersMay?: "read" | "write" | "nothing";
}

/**
 * Whether the owner of `stats` and its permission bits break `rule`; undefined
 * when they do not, and on Windows, where they cannot be known (see CHECKS).
 */
export function ownershipProblem(
  stats: Pick<Stats | BigIntStats, "uid" | "mode">,
  rule: OwnershipRule = {},
  platform: FilePlatform = THIS_PLATFORM,
): OwnershipProblem | undefined {
  if (platform.os === "win32" || platform.uid === undefined) return undefined;
  const uid = Number(stats.uid);
  const mode = Number(stats.mode) & 0o7777;
  if (uid !== platform.uid && !(rule.rootMayOwn === true && uid === 0)) {
    return { kind: "owner", uid, mine: platform.uid };
  }
  const othersMay = rule.othersMay ?? "read";
  if (othersMay === "nothing" && (mode & 0o077) !== 0) return { kind: "readable-by-others", mode };
  if (othersMay !== "write" && (mode & 0o022) !== 0) return { kind: "writable-by-others", mode };
  return undefined;
}

/**
 * Windows: whether `file` is inside the per-user profile directory, private by
 * its default ACL (the stand-in for the owner and permission checks). Always
 * true on POSIX, where those checks are made.
 */
export function privateByDefault(
  file: string,
  env: NodeJS.ProcessEnv,
  platform: FilePlatform = THIS_PLATFORM,
): boolean {
  if (platform.os !== "win32") return true;
  const profile = env.USERPROFILE;
  if (profile === undefined || !path.win32.isAbsolute(profile)) return false;
  const relative = path.win32.relative(profile.toLowerCase(), file.toLowerCase());
  return relative !== "" && !relative.startsWith("..") && !path.win32.isAbsolute(relative);
}

/**
 * Windows: the words that say who may read `file` is not known, when it is
 * outside the profile directory; undefined where there is nothing to say.
 */
export function unknownReaders(
  file: string,
  env: NodeJS.ProcessEnv,
  platform: FilePlatform = THIS_PLATFORM,
): string | undefined {
  if (privateByDefault(file, env, platform)) return undefined;
  return (
    `on Windows, who may read ${file} cannot be checked (that is its folder's ACL), and it is ` +
    "outside your profile directory, which is private by default"
  );
}

/** What a platform answers when asked to flush a directory it cannot flush. */
function refusedByPlatform(error: unknown, platform: FilePlatform): boolean {
  const code = errorCode(error);
  return platform.os === "win32" && (code === "EPERM" || code === "EISDIR" || code === "EINVAL");
}

/**
 * Makes the names in `directory` (a rename, a new or removed file) durable.
 * Resolves to false where the platform cannot (Windows); other failures are thrown.
 */
export async function syncDirectory(
  directory: string,
  platform: FilePlatform = THIS_PLATFORM,
): Promise<boolean> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(directory, "r");
    await handle.sync();
    return true;
  } catch (error) {
    if (refusedByPlatform(error, platform)) return false;
    throw error;
  } finally {
    await handle?.close();
  }
}
