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
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { rename, unlink, writeFile, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import {
  openNoFollow,
  openNoFollowSync,
  syncDirectorySync,
  THIS_PLATFORM,
  type FilePlatform,
} from "./file-safety.js";

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
  try {
    syncDirectorySync(dirname(path), platform);
  } catch {
    // Some file systems refuse fsync on a directory.
  }
}

/**
 * Creates `temporary` anew (never a name that exists, a link included), writes
 * `chunks` to it and flushes it; resolves to it, open. Removed when a step fails, so
 * a full disk is not kept full by it. `mode`: permission bits, set exactly; without
 * it, those of a new file (0666 less the umask).
 */
export async function createFlushed(
  temporary: string,
  chunks: Iterable<string>,
  options: { mode?: number; encoding?: BufferEncoding; platform?: FilePlatform } = {},
): Promise<FileHandle> {
  const { mode, encoding = "utf8", platform = THIS_PLATFORM } = options;
  const handle = await openNoFollow(temporary, CREATE_NEW, mode ?? 0o666, platform);
  try {
    if (mode !== undefined) await handle.chmod(mode);
    await writeFile(handle, chunks, encoding);
    await handle.sync();
    return handle;
  } catch (error) {
    await handle.close();
    await unlink(temporary).catch(() => {});
    throw error;
  }
}

/**
 * Puts `text` (latin1) under the name `path` with permission bits `mode`, through
 * `temporary`, which must not exist. The caller flushes the directory (with
 * file-safety.ts's syncDirectory), once for several files.
 */
export async function writeFileAtomic(
  path: string,
  temporary: string,
  text: string,
  mode: number,
  platform: FilePlatform = THIS_PLATFORM,
): Promise<void> {
  const handle = await createFlushed(temporary, [text], { mode, encoding: "latin1", platform });
  await handle.close();
  await rename(temporary, path).catch(async (error: unknown) => {
    await unlink(temporary).catch(() => {});
    throw error;
  });
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
