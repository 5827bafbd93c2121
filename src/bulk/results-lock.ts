/**
 * One run at a time per results file: two runs resuming the same file would both
 * send its pending rows. The lock is `<file>.lock` (src/schema/file-lock.ts): it
 * holds the owner's pid; a lock whose process is gone (a run killed with -9) is
 * taken over; a lock that is a symlink is refused, never followed.
 */
import { UsageError } from "../errors.js";
import { acquireFileLock } from "../schema/file-lock.js";

/** Returns the function that releases the lock. */
export function lockResults(path: string): () => void {
  const lockPath = `${path}.lock`;
  let attempt;
  try {
    attempt = acquireFileLock(lockPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`cannot lock the results file ${path} (${code})`);
  }
  if (attempt.acquired) {
    const { lock } = attempt;
    return () => {
      try {
        lock.release();
      } catch {
        // Left behind: the next run finds its process gone and takes it over.
      }
    };
  }
  switch (attempt.reason) {
    case "held":
      throw new UsageError(
        `the results file ${path} is in use by another petstore add (pid ${attempt.pid})`,
        `if that run is over, delete ${lockPath}`,
      );
    case "symlink":
    case "not-a-file":
      throw new UsageError(
        `cannot lock the results file ${path}: its lock file ${lockPath} is ${attempt.reason === "symlink" ? "a symbolic link, which is never followed" : "not a regular file"}`,
        `if no petstore add is running, delete ${lockPath}`,
      );
    case "busy":
      throw new UsageError(
        `the results file ${path} is locked by another run (${lockPath}), whose take-over did not finish (${attempt.breaker})`,
        `if no other petstore add is running, delete ${lockPath} and ${attempt.breaker}`,
      );
  }
}
