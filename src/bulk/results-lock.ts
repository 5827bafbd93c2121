/**
 * One run at a time per results file: two runs resuming the same file would both
 * send its pending rows. The lock is `<file>.lock` (src/files/file-lock.ts): it
 * holds the owner's pid; a lock whose process is gone (a run killed with -9) is
 * taken over; a lock that is a symlink is refused, never followed.
 */
import { UsageError } from "../errors.js";
import { acquireFileLock, describeRefusal } from "../files/file-lock.js";

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
  const { problem, hint } = describeRefusal(lockPath, attempt, {
    cannot: `cannot lock the results file ${path}`,
    ifIdle: "if no petstore add is running",
    held: (pid) => `the results file ${path} is in use by another petstore add (pid ${pid})`,
  });
  throw new UsageError(problem, hint);
}
