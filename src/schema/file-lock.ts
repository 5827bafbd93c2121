/**
 * A lock file holding the pid of the process that holds it: one `serve` per data
 * file, one `add --from` per results file. Shared by client and fake; it depends
 * on nothing but node:fs. Synchronous: both take it once, at start-up.
 *
 * Taking it: the pid is written to a private file `<lock>.<pid>`, created
 * exclusively (O_EXCL|O_NOFOLLOW: a symlink planted there is never followed), then
 * hard-linked to `<lock>`. link() fails when `<lock>` exists, and the lock appears
 * with its content in one step, so no reader ever sees it empty or half-written.
 *
 * A lock whose process is gone (kill -9, a crash), or that holds no pid, is stale
 * and taken over. Removing it is the one step that could remove a live lock (two
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
  openSync,
  readSync,
  unlinkSync,
  writeSync,
  type BigIntStats,
} from "node:fs";

export interface FileLock {
  readonly path: string;
  /** Removes the lock file, if it is still this lock's (idempotent). */
  release(): void;
}

type LockRefusal =
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
}

/** How long a take-over by another process is waited for (it lasts a few system calls). */
const BREAK_WAIT_MS = 2_000;

const CREATE_PRIVATE =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

function isRunning(pid: number): boolean {
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

function lstatOrGone(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true });
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

function unlinkOrGone(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
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
      fd = openSync(path, CREATE_PRIVATE, 0o600);
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
  | { kind: "file"; ino: bigint; dev: bigint; pid: number | undefined };

/** What is at `path`, and the pid it holds: a reader never follows a symlink nor blocks on a FIFO. */
function inspect(path: string): Found {
  const info = lstatOrGone(path);
  if (info === undefined) return { kind: "gone" };
  if (info.isSymbolicLink()) return { kind: "symlink" };
  if (!info.isFile()) return { kind: "not-a-file" };
  let fd: number;
  try {
    fd = openSync(path, READ);
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
    return { kind: "file", ino: opened.ino, dev: opened.dev, pid };
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
    if (other.kind === "file" && other.pid !== undefined && isRunning(other.pid)) return "wait";
    // Its process is gone: left unfinished, unless it was removed (or replaced) meanwhile.
    const now = lstatOrGone(breaker);
    if (other.kind === "file" && (now === undefined || now.ino !== other.ino)) return "again";
    return { reason: "busy", breaker };
  }
  try {
    const now = inspect(lockPath);
    if (
      now.kind === "file" &&
      now.ino === found.ino &&
      now.dev === found.dev &&
      now.pid === found.pid
    ) {
      unlinkOrGone(lockPath);
      options.onStale?.(found.pid);
    }
  } finally {
    unlinkOrGone(breaker);
  }
  return "again";
}

class HeldLock implements FileLock {
  constructor(
    readonly path: string,
    private readonly ino: bigint,
    private readonly dev: bigint,
  ) {}

  release(): void {
    // The inode alone could be a new file's (an inode is reused as soon as it is freed).
    const now = inspect(this.path);
    if (
      now.kind === "file" &&
      now.ino === this.ino &&
      now.dev === this.dev &&
      now.pid === process.pid
    ) {
      unlinkOrGone(this.path);
    }
  }
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
        const info = lstatSync(mine, { bigint: true });
        return { acquired: true, lock: new HeldLock(lockPath, info.ino, info.dev) };
      } catch (error) {
        if (errorCode(error) !== "EEXIST") throw error;
      }
      const found = inspect(lockPath);
      if (found.kind === "symlink" || found.kind === "not-a-file") {
        return { acquired: false, reason: found.kind };
      }
      if (found.kind === "gone") continue;
      if (found.pid !== undefined && isRunning(found.pid)) {
        return { acquired: false, reason: "held", pid: found.pid };
      }
      const next = breakStale(lockPath, mine, found, options);
      if (typeof next === "object") return { acquired: false, ...next };
      if (next === "wait") sleep(1);
    }
  } finally {
    unlinkOrGone(mine);
  }
}
