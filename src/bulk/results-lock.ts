/**
 * One run at a time per results file: two runs resuming the same file would both
 * send its pending rows. The lock is `<file>.lock`, created exclusively and holding
 * the owner's pid; a lock whose process is gone (a run killed with -9) is taken over.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { UsageError } from "../errors.js";

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function ownerOf(lockPath: string): number | undefined {
  try {
    const pid = Number(readFileSync(lockPath, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Returns the function that releases the lock. */
export function lockResults(path: string): () => void {
  const lockPath = `${path}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, "wx", 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        try {
          unlinkSync(lockPath);
        } catch {
          // Already gone: nothing to release.
        }
      };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EEXIST") {
        throw new UsageError(`cannot lock the results file ${path} (${code ?? String(error)})`);
      }
    }
    const owner = ownerOf(lockPath);
    if (owner !== undefined && isRunning(owner)) {
      throw new UsageError(
        `the results file ${path} is in use by another petstore add (pid ${owner})`,
        `if that run is over, delete ${lockPath}`,
      );
    }
    try {
      unlinkSync(lockPath);
    } catch {
      // Removed by someone else meanwhile; the next attempt finds out who holds it now.
    }
  }
  throw new UsageError(
    `the results file ${path} is locked by another run (${lockPath})`,
    `if no other petstore add is running, delete ${lockPath}`,
  );
}
