/**
 * One process serves a file at a time: `<file>.lock` holds the pid of the process
 * serving it. The lock file appears with its content in one step (written under a
 * private name, then hard-linked into place, which fails if it exists), so a reader
 * never sees it empty. A lock whose process is gone (kill -9, a crash) is taken over.
 */
import { link, readFile, unlink, writeFile } from "node:fs/promises";
import { ignoreMissing, isMissing } from "./durable.js";
import { StoreError } from "./types.js";

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function readPid(lockFile: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await readFile(lockFile, "utf8"), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Takes the lock of `file` (named `name` in messages); resolves to its release. */
export async function acquireLock(
  file: string,
  name: string,
  log: (line: string) => void,
): Promise<() => Promise<void>> {
  const lockFile = `${file}.lock`;
  const mine = `${lockFile}.${process.pid}`;
  await writeFile(mine, `${process.pid}\n`);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await link(mine, lockFile);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 5) throw error;
      }
      const holder = await readPid(lockFile);
      if (holder !== undefined && isRunning(holder)) {
        const who = holder === process.pid ? `this process (${holder})` : `process ${holder}`;
        throw new StoreError(
          "locked",
          `${name} is already being served by ${who} (lock file ${lockFile}). ` +
            `Stop that server or serve another file; if no server is running, delete ${lockFile}.`,
        );
      }
      log(
        holder === undefined
          ? `Removing the unreadable lock file ${lockFile}.`
          : `Taking over ${lockFile}: process ${holder}, which held it, is no longer running.`,
      );
      await unlink(lockFile).catch(ignoreMissing);
    }
  } finally {
    await unlink(mine).catch(ignoreMissing);
  }
  return async () => {
    if ((await readPid(lockFile)) === process.pid) await unlink(lockFile).catch(ignoreMissing);
  };
}
