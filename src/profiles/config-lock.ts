/**
 * One writer of the config at a time: `config.json.lock`, next to the file, holds
 * the pid of the process that reads, changes and writes the config. It appears
 * with its content in one step (written under a private name, then hard-linked
 * into place, which fails if it exists), so no one ever reads it empty. Writers
 * wait for each other (a write takes milliseconds); a lock whose process is gone
 * (kill -9), or older than any write can be, is taken over.
 *
 * `withConfigLock` is the only entry point, so a shared lock module can replace
 * the body without touching the callers.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  linkSync,
  lstatSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { UsageError } from "../errors.js";

/** Longer than any write of the config, with room for a loaded machine. */
const STALE_AFTER_MS = 30_000;
const UNREADABLE_GRACE_MS = 1_000;
/** How long a writer waits for another before giving up. */
const WAIT_LIMIT_MS = 60_000;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The pid in a lock file; undefined when it is gone or holds no pid. */
function holderOf(lockFile: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockFile, "utf8"), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function ageMs(path: string): number | undefined {
  try {
    return Date.now() - lstatSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

/**
 * Moves a stale lock out of the way. It is renamed first, then checked: if it is
 * no longer the stale lock (another writer took it over meanwhile), it is put back.
 */
function takeOver(lockFile: string, stalePid: number | undefined): void {
  const aside = `${lockFile}.stale.${process.pid}.${randomBytes(4).toString("hex")}`;
  try {
    renameSync(lockFile, aside);
  } catch {
    return; // Gone already: the next attempt finds out.
  }
  if (holderOf(aside) !== stalePid) {
    try {
      linkSync(aside, lockFile);
    } catch {
      // Someone holds the lock again: theirs stays.
    }
  }
  removeQuietly(aside);
}

async function acquire(lockFile: string, file: string): Promise<() => void> {
  const mine = `${lockFile}.${process.pid}.${randomBytes(4).toString("hex")}`;
  const fd = openSync(
    mine,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
    0o600,
  );
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  const deadline = Date.now() + WAIT_LIMIT_MS;
  try {
    for (;;) {
      try {
        linkSync(mine, lockFile);
        return () => {
          if (holderOf(lockFile) === process.pid) removeQuietly(lockFile);
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = holderOf(lockFile);
      const age = ageMs(lockFile);
      if (age === undefined) continue; // Released meanwhile.
      // A lock without a pid was not written by petstore (or is being replaced): give it a moment.
      const waiting =
        holder === undefined
          ? age < UNREADABLE_GRACE_MS
          : holder !== process.pid && isRunning(holder) && age < STALE_AFTER_MS;
      if (!waiting) {
        takeOver(lockFile, holder);
        continue;
      }
      if (Date.now() > deadline) {
        throw new UsageError(
          `the config file ${file} is being written by ${holder === undefined ? "another process" : `process ${holder}`} (lock file ${lockFile})`,
          `if no petstore command is running, delete ${lockFile}`,
        );
      }
      await sleep(5 + Math.floor(Math.random() * 20));
    }
  } finally {
    removeQuietly(mine);
  }
}

/** Runs `work` holding the lock of the config file `file`. */
export async function withConfigLock<T>(file: string, work: () => T): Promise<T> {
  const release = await acquire(`${file}.lock`, file);
  try {
    return work();
  } finally {
    release();
  }
}
