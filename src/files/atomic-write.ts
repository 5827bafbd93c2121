/**
 * Replacing a file whole, without ever following a link or reusing someone
 * else's inode: the new content goes to a temporary file created exclusively
 * next to the target (file-safety.ts: O_EXCL, never through a link; so it is
 * new, ours and private from its first byte), is flushed to disk, then renamed
 * over the target, and the directory is flushed so that the rename itself
 * survives a crash (where the platform can: not on Windows). A rename replaces
 * the name, so a link at the target is replaced, never written through.
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
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { openNoFollowSync, THIS_PLATFORM, type FilePlatform } from "./file-safety.js";

const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

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

/**
 * Replaces `path` with `data`, a file of permission bits `mode`. The directory
 * is flushed as well as it can be: the new file is in place either way, so a
 * file system that refuses it does not fail the write.
 */
export function writeFileAtomicSync(
  path: string,
  data: string,
  mode: number,
  platform: FilePlatform = THIS_PLATFORM,
): void {
  const temporary = temporaryName(path);
  const fd = openNoFollowSync(temporary, CREATE_NEW, mode, platform);
  try {
    try {
      // The umask may have taken bits away; it never adds any, but be exact.
      fchmodSync(fd, mode);
      writeFileSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    removeQuietly(temporary);
    throw error;
  }
  try {
    const directory = openSync(dirname(path), constants.O_RDONLY);
    try {
      fsyncSync(directory);
    } finally {
      closeSync(directory);
    }
  } catch {
    // Windows and some file systems refuse to flush a directory; the file is in place.
  }
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
