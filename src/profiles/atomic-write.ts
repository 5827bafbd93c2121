/**
 * Replacing a small private file without ever following a link or reusing
 * someone else's inode: the new content goes to a temporary file created with
 * O_EXCL|O_NOFOLLOW next to the target (so it is new, ours and private from its
 * first byte), is flushed to disk, then renamed over the target; the directory is
 * flushed so the rename itself survives a crash. A rename replaces the name, so a
 * link at the target is replaced, never written through.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  copyFileSync,
  fchmodSync,
  fsyncSync,
  linkSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";

const CREATE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** A name in the directory of `path` that nothing else uses. */
function temporaryName(path: string): string {
  return join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`,
  );
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Never created, or already gone.
  }
}

/** Flushes a directory's entries (a rename in it); not possible on every platform. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY);
    fsyncSync(fd);
  } catch {
    // Windows cannot open a directory; some file systems refuse fsync on one.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function writeFileAtomic(path: string, data: string, mode: number): void {
  const temporary = temporaryName(path);
  const fd = openSync(temporary, CREATE_FLAGS, mode);
  try {
    try {
      // The umask may have taken bits away; it never adds any, but be exact.
      fchmodSync(fd, mode);
      const bytes = Buffer.from(data, "utf8");
      for (let offset = 0; offset < bytes.length;) {
        offset += writeSync(fd, bytes, offset, bytes.length - offset);
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    removeQuietly(temporary);
    throw error;
  }
  syncDirectory(dirname(path));
}

/**
 * Gives the file at `path` a second name, `backup` (replacing what was there):
 * the same bytes, never read or rewritten. Where hard links are not supported,
 * a copy.
 */
export function keepCopy(path: string, backup: string): void {
  const temporary = temporaryName(backup);
  try {
    try {
      linkSync(path, temporary);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV") throw error;
      copyFileSync(path, temporary, constants.COPYFILE_EXCL);
    }
    renameSync(temporary, backup);
  } catch (error) {
    removeQuietly(temporary);
    throw error;
  }
}
