/** File-system failures in the words of the store's messages: for the log, and for a client. */
import { StoreError } from "./types.js";

/**
 * What went wrong, for the person running the server (`%`: the system's message, with
 * paths) and for a client (no path, no system detail); "journal" is what people see
 * of the write-ahead log, its file `<file>.journal`.
 */
const WORDS: Readonly<Record<string, readonly [string, string]>> = {
  ENOSPC: ["the disk is full", "the disk is full"],
  EDQUOT: ["the disk quota is used up", "the disk quota is used up"],
  EFBIG: [
    "the file is larger than the file system or the process's file size limit allows",
    "the journal reached the largest file size allowed",
  ],
  EIO: ["the disk reported an I/O error (%)", "the disk reported an I/O error"],
  EACCES: ["permission denied (%)", "permission to write was denied"],
  EPERM: ["permission denied (%)", "permission to write was denied"],
  EROFS: ["the file system is read-only", "the file system became read-only"],
  ENOENT: ["no such file or directory (%)", "the write failed (ENOENT)"],
};

function words(error: unknown, forClient: boolean): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const said = code === undefined || !Object.hasOwn(WORDS, code) ? undefined : WORDS[code]!;
  return said?.[forClient ? 1 : 0].replace("%", (error as Error).message);
}

/** What went wrong, for the person running the server (paths included); no final period. */
export function describeError(error: unknown): string {
  if (error instanceof StoreError) return error.message.replace(/\.$/, "");
  return words(error, false) ?? (error instanceof Error ? error.message : String(error));
}

export function asStoreError(error: unknown, what: string): StoreError {
  if (error instanceof StoreError) return error;
  return new StoreError("io", `${what}: ${describeError(error)}.`);
}

/** A create whose log write failed and was undone: the pet is certainly not stored. */
export function notStored(error: unknown): StoreError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const why = words(error, true) ?? `the write failed${code === undefined ? "" : ` (${code})`}`;
  return new StoreError(
    "not_stored",
    `The pet was not stored: ${why}. Send it again once the fake's disk has room.`,
  );
}
