/**
 * The one lock file algorithm: one `serve` per data file, one `add --from` per
 * results file, one writer of the config at a time. The lock holds the pid of the
 * process that holds it. Shared by client and fake; it depends on nothing but
 * node:fs and file-safety.ts. Taking it is synchronous (serve and add take it
 * once, at start-up); `waitForFileLock` waits for a holder to let go (the config).
 *
 * Taking it: the pid is written to a private file `<lock>.<pid>`, created
 * exclusively and never through a link (file-safety.ts), then hard-linked to
 * `<lock>` (NTFS has hard links too). link() fails when `<lock>` exists, and the
 * lock appears with its content in one step, so no reader ever sees it empty or
 * half-written.
 *
 * A lock is stale, and taken over, when its process is gone (kill -9, a crash, a
 * closed console on Windows), when it holds no pid, and when it holds this
 * process's own pid but this process does not hold it: a process that was
 * killed left it, and this one was given the same pid (Windows reuses pids
 * soon). Removing it is the one step that could remove a live lock (two
 * processes find the same stale lock, the first replaces it, the second removes
 * the replacement), so it is done only while holding `<lock>.break` (taken by
 * link() as well), and only if `<lock>` is still the very file found stale.
 *
 * `<lock>` is never followed nor replaced when it is a symlink or anything but a
 * regular file: the attempt is refused, and the caller names the file.
 */
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  readSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { resolve } from "node:path";
import { setTimeout as sleepAsync } from "node:timers/promises";
import { errorCode, isMissing, lstatIfThere, openNoFollowSync } from "./file-safety.js";

export interface FileLock {
  readonly path: string;
  /** Removes the lock file, if it is still this lock's (idempotent). */
  release(): void;
}

export type LockRefusal =
  /** A running process holds it (possibly this one). */
  | { reason: "held"; pid: number }
  /** The lock path is a symbolic link: never followed, never replaced. */
  | { reason: "symlink" }
  /** The lock path is a directory, a FIFO, a device... */
  | { reason: "not-a-file" }
  /** A take-over of the stale lock did not finish: `breaker` is left, or is held for too long. */
  | { reason: "busy"; breaker: string };

export type LockAttempt = { acquired: true; lock: FileLock } | ({ acquired: false } & LockRefusal);

export interface LockOptions {
  /** Called when a stale lock is removed, with the pid it held (none: it held no pid). */
  onStale?: (pid: number | undefined) => void;
  /**
   * A lock older than this is stale whatever its pid: for locks held for
   * milliseconds (the config's), where a live holder that old is another
   * program that was given the pid of one that died.
   */
  staleAfterMs?: number;
}

/** How a caller names its lock in the words of a refusal. */
export interface LockWords {
  /** What could not be done: "cannot lock the results file rows.results.ndjson". */
  cannot: string;
  /** When deleting the lock file is safe: "if no petstore add is running". */
  ifIdle: string;
  /** The refusal when a running process (`pid`) holds the lock. */
  held: (pid: number) => string;
}

/** Why `lockPath` was not taken, in the caller's words, and what to do about it. */
export function describeRefusal(
  lockPath: string,
  refusal: LockRefusal,
  words: LockWords,
): { problem: string; hint: string } {
  const hint = `${words.ifIdle}, delete ${lockPath}`;
  switch (refusal.reason) {
    case "held":
      return { problem: words.held(refusal.pid), hint };
    case "symlink":
      return {
        problem: `${words.cannot}: its lock file ${lockPath} is a symbolic link, which is never followed`,
        hint,
      };
    case "not-a-file":
      return { problem: `${words.cannot}: its lock file ${lockPath} is not a regular file`, hint };
    case "busy":
      return {
        problem: `${words.cannot}: a take-over of its stale lock file ${lockPath} did not finish (${refusal.breaker})`,
        hint: `${hint} and ${refusal.breaker}`,
      };
  }
}

/** How long a take-over by another process is waited for (it lasts a few system calls). */
const BREAK_WAIT_MS = 2_000;

const CREATE_PRIVATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

/** The locks this process holds (absolute paths): a lock with our pid and not in here is stale. */
const heldHere = new Set<string>();

/** Whether `pid` is a process other than this one that is running. */
function isAnotherRunning(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === "EPERM";
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function unlinkOrGone(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

/**
 * Writes this process's pid to `path`, a name no other running process uses: a
 * file left there (by a dead process with the same pid) or a planted symlink is
 * removed (unlink removes a symlink itself, never its target), never written through.
 */
function writePrivate(path: string): void {
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openNoFollowSync(path, CREATE_PRIVATE, 0o600);
    } catch (error) {
      if (errorCode(error) !== "EEXIST" || attempt > 0) throw error;
      unlinkOrGone(path);
      continue;
    }
    try {
      const bytes = Buffer.from(`${process.pid}\n`);
      for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
    } finally {
      closeSync(fd);
    }
    return;
  }
}

type Found =
  | { kind: "gone" }
  | { kind: "symlink" }
  | { kind: "not-a-file" }
  | { kind: "file"; ino: bigint; dev: bigint; pid: number | undefined; ageMs: number };

/**
 * Whether `path` is still the lock file `lock`: the same file holding the same pid
 * (the inode alone could be a new file's, an inode is reused as soon as it is freed).
 */
function stillThere(path: string, lock: { ino: bigint; dev: bigint; pid: number | undefined }) {
  const now = inspect(path);
  return (
    now.kind === "file" && now.ino === lock.ino && now.dev === lock.dev && now.pid === lock.pid
  );
}

/** What is at `path`, and the pid it holds: a reader never follows a symlink nor blocks on a FIFO. */
function inspect(path: string): Found {
  const info = lstatIfThere(path);
  if (info === undefined) return { kind: "gone" };
  if (info.isSymbolicLink()) return { kind: "symlink" };
  if (!info.isFile()) return { kind: "not-a-file" };
  let fd: number;
  try {
    fd = openNoFollowSync(path, constants.O_RDONLY);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT") return { kind: "gone" };
    if (code === "ELOOP") return { kind: "symlink" };
    throw error;
  }
  try {
    const opened = fstatSync(fd, { bigint: true });
    if (!opened.isFile()) return { kind: "not-a-file" };
    const buffer = Buffer.alloc(24);
    const text = buffer.toString("utf8", 0, readSync(fd, buffer, 0, buffer.length, 0));
    const pid = /^[1-9][0-9]{0,9}\n?$/.test(text) ? Number(text.trim()) : undefined;
    const ageMs = Date.now() - Number(opened.mtimeMs);
    return { kind: "file", ino: opened.ino, dev: opened.dev, pid, ageMs };
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes the stale lock `found`, holding `<lock>.break` meanwhile. Returns
 * "again" to try once more (removed, or changed meanwhile), "wait" while another
 * process takes it over, or the refusal when a take-over was left unfinished.
 */
function breakStale(
  lockPath: string,
  mine: string,
  found: Extract<Found, { kind: "file" }>,
  options: LockOptions,
): "again" | "wait" | LockRefusal {
  const breaker = `${lockPath}.break`;
  try {
    linkSync(mine, breaker);
  } catch (error) {
    if (errorCode(error) !== "EEXIST") throw error;
    const other = inspect(breaker);
    if (other.kind === "gone") return "again";
    if (other.kind === "file" && other.pid !== undefined && isAnotherRunning(other.pid)) {
      return "wait";
    }
    // Its process is gone: left unfinished, unless it was removed (or replaced) meanwhile.
    const now = lstatIfThere(breaker);
    if (other.kind === "file" && (now === undefined || now.ino !== other.ino)) return "again";
    return { reason: "busy", breaker };
  }
  try {
    if (stillThere(lockPath, found)) {
      unlinkOrGone(lockPath);
      options.onStale?.(found.pid);
    }
  } finally {
    unlinkOrGone(breaker);
  }
  return "again";
}

/** Whether the lock `found` at `lockPath` is held by a live process (this one included). */
function isHeld(lockPath: string, found: Extract<Found, { kind: "file" }>, options: LockOptions) {
  if (found.pid === undefined) return false;
  if (found.pid === process.pid) return heldHere.has(resolve(lockPath));
  if (options.staleAfterMs !== undefined && found.ageMs > options.staleAfterMs) return false;
  return isAnotherRunning(found.pid);
}

/**
 * Takes the lock file `lockPath`, or says why not. A failure of the file system
 * (a missing directory, a read-only one) is thrown as the system error.
 */
export function acquireFileLock(lockPath: string, options: LockOptions = {}): LockAttempt {
  const mine = `${lockPath}.${process.pid}`;
  const deadline = Date.now() + BREAK_WAIT_MS;
  try {
    writePrivate(mine);
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0 && Date.now() > deadline) {
        return { acquired: false, reason: "busy", breaker: `${lockPath}.break` };
      }
      try {
        linkSync(mine, lockPath);
        const { ino, dev } = lstatSync(mine, { bigint: true });
        heldHere.add(resolve(lockPath));
        const release = () => {
          heldHere.delete(resolve(lockPath));
          if (stillThere(lockPath, { ino, dev, pid: process.pid })) unlinkOrGone(lockPath);
        };
        return { acquired: true, lock: { path: lockPath, release } };
      } catch (error) {
        if (errorCode(error) !== "EEXIST") throw error;
      }
      const found = inspect(lockPath);
      if (found.kind === "symlink" || found.kind === "not-a-file") {
        return { acquired: false, reason: found.kind };
      }
      if (found.kind === "gone") continue;
      if (isHeld(lockPath, found, options)) {
        return { acquired: false, reason: "held", pid: found.pid! };
      }
      const next = breakStale(lockPath, mine, found, options);
      if (typeof next === "object") return { acquired: false, ...next };
      if (next === "wait") sleep(1);
    }
  } finally {
    unlinkOrGone(mine);
  }
}

/**
 * Takes the lock file `lockPath`, waiting up to `waitMs` while another process
 * (or another task of this one) holds it; says why not once that is over.
 */
export async function waitForFileLock(
  lockPath: string,
  options: LockOptions & { waitMs: number },
): Promise<LockAttempt> {
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    const attempt = acquireFileLock(lockPath, options);
    if (attempt.acquired || attempt.reason !== "held" || Date.now() > deadline) return attempt;
    // Holders let go within milliseconds: a short, jittered wait, so two waiters do not keep colliding.
    await sleepAsync(5 + Math.floor(Math.random() * 20));
  }
}
