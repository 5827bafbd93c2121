/**
 * One writer of the config at a time: `config.json.lock`, next to the file, is
 * the lock serve and add take too (files/file-lock.ts: it holds the writer's
 * pid and appears with it in one step; a lock whose process is gone is taken
 * over, one that is a symlink is refused). Writers wait for each other (a write
 * takes milliseconds), and a lock older than any write can be is taken over
 * whatever its pid: a live process that old is another program given a dead
 * writer's pid.
 */
import { UsageError } from "../errors.js";
import { describeRefusal, waitForFileLock } from "../files/file-lock.js";

/** Longer than any write of the config, with room for a loaded machine. */
const STALE_AFTER_MS = 30_000;
/** How long a writer waits for another before giving up. */
const WAIT_LIMIT_MS = 60_000;

/** Runs `work` holding the lock of the config file `file`. */
export async function withConfigLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  const lockFile = `${file}.lock`;
  const attempt = await waitForFileLock(lockFile, {
    waitMs: WAIT_LIMIT_MS,
    staleAfterMs: STALE_AFTER_MS,
  });
  if (!attempt.acquired) {
    const { problem, hint } = describeRefusal(lockFile, attempt, {
      cannot: `cannot write the config file ${file}`,
      ifIdle: "if no petstore command is running",
      held: (pid) =>
        `the config file ${file} is being written by process ${pid} (lock file ${lockFile})`,
    });
    throw new UsageError(problem, hint);
  }
  try {
    return await work();
  } finally {
    attempt.lock.release();
  }
}
