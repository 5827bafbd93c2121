/**
 * The checks made when the results file is opened: a file given with --results
 * is new or empty (never another run's), and one resumed is cut back to its
 * last whole line, only if nothing wrote to it since it was read.
 */
import { fstatSync, ftruncateSync, readSync, statSync, type Stats } from "node:fs";
import { UsageError } from "../errors.js";

/**
 * Cuts the last line --resume found cut short (the file up to `validBytes` was
 * read and checked). Anything that ends a line after `validBytes`, or a file now
 * shorter, means the file changed since (another run wrote to it): nothing is cut.
 */
export function cutTornLine(fd: number, path: string, validBytes: number): void {
  const size = fstatSync(fd).size;
  const buffer = Buffer.allocUnsafe(64 * 1024);
  let at = validBytes;
  while (at < size) {
    const read = readSync(fd, buffer, 0, Math.min(buffer.length, size - at), at);
    if (read === 0 || buffer.subarray(0, read).includes(0x0a)) break;
    at += read;
  }
  if (at !== size || size < validBytes) {
    throw new UsageError(
      `the results file ${path} changed after it was read (is another petstore add writing to it?); nothing was sent and it was left as it was`,
      "run the same command again",
    );
  }
  if (size > validBytes) ftruncateSync(fd, validBytes);
}

/** A results file is never overwritten or mixed with another run's: that is what --resume is for. */
export function checkResultsPath(path: string): void {
  let info: Stats;
  try {
    info = statSync(path);
  } catch {
    return;
  }
  // Appending to a device or a FIFO would write where no results file is (or block).
  if (!info.isFile()) {
    throw new UsageError(
      `the results file ${path} is not a regular file`,
      "choose a file for --results (a new one, or an empty one)",
    );
  }
  if (info.size > 0) {
    throw new UsageError(
      `the results file ${path} already exists`,
      `to continue that run, use --resume ${path}; otherwise choose another --results file`,
    );
  }
}
