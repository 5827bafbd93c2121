/** File-system failures in the words of the store's messages: for the log, and for a client. */
import { StoreError } from "./types.js";

/** What people are told for the disk's refusals; "journal" is what they see of the log. */
const WORDS: Readonly<Record<string, string>> = {
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is used up",
  EFBIG: "the journal reached the largest file size allowed",
  EIO: "the disk reported an I/O error",
  EACCES: "permission to write was denied",
  EPERM: "permission to write was denied",
  EROFS: "the file system is read-only",
};

function wordsFor(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && Object.hasOwn(WORDS, code) ? WORDS[code] : undefined;
}

/** What went wrong, for the person running the server (paths included); no final period. */
export function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const words = wordsFor(error);
  return words === undefined ? message.replace(/\.$/, "") : `${words} (${message})`;
}

/** `error` as a StoreError: itself, or `io` (`what` failed, and why). */
export function worded(error: unknown, what: string): StoreError {
  if (error instanceof StoreError) return error;
  return new StoreError("io", `${what}: ${describeError(error)}.`);
}

/** A create whose log write failed and was undone: the pet is certainly not stored. */
export function notStored(error: unknown): StoreError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const why = wordsFor(error) ?? `the write failed${code === undefined ? "" : ` (${code})`}`;
  return new StoreError(
    "not_stored",
    `The pet was not stored: ${why}. Send it again once the fake's disk has room.`,
  );
}
