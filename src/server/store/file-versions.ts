/**
 * The JSON file of the file store, as versions: reading one (its bytes with the
 * stat of the same open file), telling whether it changed, and writing the next
 * one under `<file>.tmp` to be renamed over it. The temporary file is always
 * created anew, never through a symlink, and removed when the write fails.
 */
import { constants, type BigIntStats } from "node:fs";
import { copyFile, lstat, rename, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { syncDirectory } from "../../files/file-safety.js";
import { isMissing, writeAllAt } from "./durable.js";
import { clearLeftover, createExclusive, openDataFile, reopenOwn } from "./file-kinds.js";
import {
  appendOffsetAfter,
  appendOffsetOfWholeFile,
  appendText,
  fileTextChunks,
  type PetFile,
} from "./file-format.js";
import type { StoredPet } from "./pet-index.js";

/** The JSON file as this store last wrote or adopted it. */
export interface FileVersion {
  /** undefined: the file does not exist. */
  stat: BigIntStats | undefined;
  /** Where appends go; undefined when the file must be written whole. */
  appendOffset: number | undefined;
  hasElements: boolean;
}

/** No file yet (or none to append to): the next write writes it whole. */
export const NO_FILE: Readonly<FileVersion> = Object.freeze({
  stat: undefined,
  appendOffset: undefined,
  hasElements: false,
});

export function appendPoint(parsed: PetFile): Omit<FileVersion, "stat"> {
  return { appendOffset: parsed.appendOffset, hasElements: parsed.hasElements };
}

/** The file's bytes with the stat of the same open file, or undefined when missing. */
export async function readVersion(
  file: string,
  name: string,
): Promise<{ bytes: Buffer; stat: BigIntStats } | undefined> {
  const handle = await openDataFile(file, name);
  if (handle === undefined) return undefined;
  try {
    const fileStat = await handle.stat({ bigint: true });
    return { bytes: await handle.readFile(), stat: fileStat };
  } finally {
    await handle.close();
  }
}

/** The file's own stat: a symlink put in its place is a change, not followed. */
export async function statIfExists(file: string): Promise<BigIntStats | undefined> {
  try {
    return await lstat(file, { bigint: true });
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

export function versionKey(fileStat: BigIntStats | undefined): string {
  return fileStat === undefined
    ? "missing"
    : `${fileStat.ino}:${fileStat.size}:${fileStat.mtimeNs}`;
}

/**
 * Writes `<file>.tmp`: the file as of `base` with `append` pets added after its last
 * element (a kernel copy plus the new tail), or `whole` written out; fsynced. The
 * temporary file is created anew (never through a symlink) and removed on failure,
 * so a full disk is not kept full by it.
 */
export async function writeTemp(
  file: string,
  base: FileVersion,
  content: { append: readonly StoredPet[] } | { whole: readonly StoredPet[] },
): Promise<FileVersion> {
  const temp = `${file}.tmp`;
  await clearLeftover(temp);
  try {
    return await writeNewTemp(file, temp, base, content);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
}

async function writeNewTemp(
  file: string,
  temp: string,
  base: FileVersion,
  content: { append: readonly StoredPet[] } | { whole: readonly StoredPet[] },
): Promise<FileVersion> {
  let handle: FileHandle;
  let appendOffset: number;
  let hasElements: boolean;
  if ("append" in content) {
    if (base.appendOffset === undefined || content.append.length === 0) {
      throw new Error("writeTemp: nothing to append, or no place to append it");
    }
    // EXCL: the copy is written to a new file, never through a name planted meanwhile.
    await copyFile(file, temp, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    handle = await reopenOwn(temp);
    try {
      const tail = Buffer.from(appendText(content.append, base.hasElements));
      await writeAllAt(handle, tail, base.appendOffset);
      await handle.truncate(base.appendOffset + tail.length);
      appendOffset = appendOffsetAfter(base.appendOffset, tail.length);
      hasElements = true;
    } catch (error) {
      await handle.close();
      throw error;
    }
  } else {
    handle = await createExclusive(temp);
    try {
      let size = 0;
      for (const chunk of fileTextChunks(content.whole)) {
        const bytes = Buffer.from(chunk);
        await writeAllAt(handle, bytes, size);
        size += bytes.length;
      }
      appendOffset = appendOffsetOfWholeFile(size, content.whole.length);
      hasElements = content.whole.length > 0;
    } catch (error) {
      await handle.close();
      throw error;
    }
  }
  try {
    await handle.sync();
    return { stat: await handle.stat({ bigint: true }), appendOffset, hasElements };
  } finally {
    await handle.close();
  }
}

/** Puts `<file>.tmp` in place of the file, durably. */
export async function install(file: string): Promise<void> {
  await rename(`${file}.tmp`, file);
  await syncDirectory(path.dirname(file));
}
