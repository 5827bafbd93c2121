/**
 * One process serves a file at a time: `<file>.lock` holds the pid of the process
 * serving it (src/schema/file-lock.ts: it appears with its content in one step; a
 * lock whose process is gone, or that names this process without being its own,
 * is taken over; a lock that is a symlink is refused, never followed). This
 * builds the messages `serve` shows.
 */
import { acquireFileLock } from "../../schema/file-lock.js";
import { StoreError } from "./types.js";

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
  switch (attempt.reason) {
    case "held": {
      const holder = attempt.pid;
      const who = holder === process.pid ? `this process (${holder})` : `process ${holder}`;
      throw new StoreError(
        "locked",
        `${name} is already being served by ${who} (lock file ${lockFile}). ` +
          `Stop that server or serve another file; if no server is running, delete ${lockFile}.`,
      );
    }
    case "symlink":
    case "not-a-file":
      throw new StoreError(
        "locked",
        `Cannot serve ${name}: its lock file ${lockFile} is ${attempt.reason === "symlink" ? "a symbolic link, which is never followed" : "not a regular file"}. ` +
          `If no server is running, delete ${lockFile}.`,
      );
    case "busy":
      throw new StoreError(
        "locked",
        `Cannot serve ${name}: a take-over of its stale lock file ${lockFile} did not finish (${attempt.breaker}). ` +
          `If no server is running, delete ${lockFile} and ${attempt.breaker}.`,
      );
  }
}
