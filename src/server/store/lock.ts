/**
 * One process serves a file at a time: `<file>.lock` holds the pid of the process
 * serving it (src/files/file-lock.ts: it appears with its content in one step; a
 * lock whose process is gone, or that names this process without being its own,
 * is taken over; a lock that is a symlink is refused, never followed). This
 * builds the messages `serve` shows.
 */
import { acquireFileLock, describeRefusal } from "../../files/file-lock.js";
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
  const { problem, hint } = describeRefusal(lockFile, attempt, {
    cannot: `Cannot serve ${name}`,
    ifIdle: "If no server is running",
    held: (pid) =>
      `${name} is already being served by ${pid === process.pid ? `this process (${pid})` : `process ${pid}`} ` +
      `(lock file ${lockFile}). Stop that server or serve another file`,
  });
  throw new StoreError("locked", `${problem}. ${hint}.`);
}
