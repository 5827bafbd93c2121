/** Small durable-write helpers over node:fs/promises (each runs in the libuv pool). */
import type { FileHandle } from "node:fs/promises";

/** Writes all of `bytes` at `position`. */
export async function writeAllAt(
  handle: FileHandle,
  bytes: Buffer,
  position: number,
): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done);
    done += bytesWritten;
  }
}

export function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}

/** For `.catch`: a missing file is fine, anything else is not. */
export function ignoreMissing(error: unknown): void {
  if (!isMissing(error)) throw error;
}
