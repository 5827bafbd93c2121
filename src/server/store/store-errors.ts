/** File-system failures in the words of the store's messages: for the log, and for a client. */
import { StoreError } from "./types.js";

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Out of room, in the same words for the log and for a client. */
const OUT_OF_ROOM: Readonly<Record<string, string>> = {
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is used up",
};

/** What went wrong, for the person running the server (paths included); no final period. */
export function describeError(error: unknown): string {
  if (error instanceof StoreError) return error.message.replace(/\.$/, "");
  const code = errnoOf(error);
  if (code !== undefined && Object.hasOwn(OUT_OF_ROOM, code)) return OUT_OF_ROOM[code]!;
  switch (code) {
    case "EFBIG":
      return "the file is larger than the file system or the process's file size limit allows";
    case "EIO":
      return `the disk reported an I/O error (${(error as Error).message})`;
    case "EACCES":
    case "EPERM":
      return `permission denied (${(error as Error).message})`;
    case "EROFS":
      return "the file system is read-only";
    case "ENOENT":
      return `no such file or directory (${(error as Error).message})`;
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

export function asStoreError(error: unknown, what: string): StoreError {
  if (error instanceof StoreError) return error;
  return new StoreError("io", `${what}: ${describeError(error)}.`);
}

/** Why a write failed, for a client: no path, no system detail. */
function writeFailureReason(error: unknown): string {
  const code = errnoOf(error);
  if (code !== undefined && Object.hasOwn(OUT_OF_ROOM, code)) return OUT_OF_ROOM[code]!;
  switch (code) {
    case "EFBIG":
      // "journal": what the person sees of the write-ahead log, its file `<file>.journal`.
      return "the journal reached the largest file size allowed";
    case "EIO":
      return "the disk reported an I/O error";
    case "EROFS":
      return "the file system became read-only";
    case "EACCES":
    case "EPERM":
      return "permission to write was denied";
    default:
      return code === undefined ? "the write failed" : `the write failed (${code})`;
  }
}

/** A create whose write-ahead log write failed and was undone: the pet is certainly not stored. */
export function notStored(error: unknown): StoreError {
  return new StoreError(
    "not_stored",
    `The pet was not stored: ${writeFailureReason(error)}. Send it again once the fake's disk has room.`,
  );
}
