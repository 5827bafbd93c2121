/**
 * PEM files on disk. The ones a person gives (`--tls-cert`, `--tls-key`) are read
 * as the data file is: a symlink is followed, but what it leads to must be a
 * regular file; a device, FIFO, socket or directory is refused, never read nor
 * waited on. The ones serve writes itself (the local CA next to the data file) are
 * companions, as the write-ahead log is: never followed through a symlink, refused unless
 * a regular file of ours with a single name, and replaced by writing a temporary
 * file and renaming it over the name.
 */
import {
  constants,
  fstatSync,
  lstatSync,
  openSync,
  closeSync,
  readFileSync,
  readlinkSync,
} from "node:fs";
import { lstat, type FileHandle } from "node:fs/promises";
import { ServerConfigError } from "../config-error.js";
import { writeFileAtomic } from "../../files/atomic-write.js";
import { nonRegularKind } from "../../files/file-kind.js";
import { isMissing, openNoFollow } from "../../files/file-safety.js";
import { clearLeftover, companionProblem, refuseCompanion } from "../store/file-kinds.js";
import { asStoreError } from "../store/store-errors.js";

const { O_RDONLY } = constants;
// Not defined on Windows, where a FIFO cannot be put under a file's name.
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Far more than any certificate chain or key; a larger file is not one. */
const MAX_PEM_BYTES = 1024 * 1024;

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function whyUnreadable(error: unknown): string {
  switch (errorCode(error)) {
    case "ENOENT":
      return "no such file";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "ELOOP":
      return "too many levels of symbolic links";
    case "ENOTDIR":
      return "a part of the path is not a directory";
    default:
      return errorCode(error) ?? String(error);
  }
}

/** `it is a FIFO`, or `it is a symlink to X, which is a FIFO`. */
function whatItIs(path: string, kind: string): string {
  try {
    if (lstatSync(path).isSymbolicLink()) {
      return `it is a symlink to ${readlinkSync(path)}, which is ${kind}`;
    }
  } catch {
    // Gone meanwhile: say what was opened.
  }
  return `it is ${kind}`;
}

/** The text of the PEM file `path` given with `flag`; a ServerConfigError naming both when it cannot be. */
export function readGivenPem(path: string, flag: string): string {
  const label = `${flag} ${path}`;
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | O_NONBLOCK);
  } catch (error) {
    throw new ServerConfigError(`${label}: cannot read it (${whyUnreadable(error)}).`);
  }
  try {
    const info = fstatSync(fd);
    const kind = nonRegularKind(info);
    if (kind !== undefined) {
      throw new ServerConfigError(
        `${label}: ${whatItIs(path, kind)}, not a regular file. Give a PEM file.`,
      );
    }
    if (info.size > MAX_PEM_BYTES) {
      throw new ServerConfigError(
        `${label}: ${info.size} bytes is too large for a PEM file (at most ${MAX_PEM_BYTES}).`,
      );
    }
    return readFileSync(fd, "latin1");
  } catch (error) {
    if (error instanceof ServerConfigError) throw error;
    throw new ServerConfigError(`${label}: cannot read it (${whyUnreadable(error)}).`);
  } finally {
    closeSync(fd);
  }
}

export interface CompanionText {
  text: string;
  /** Permission bits. */
  mode: number;
  uid: number;
}

/**
 * The text of `file`, a file serve writes itself, or undefined when there is none.
 * Refuses (StoreError "unsafe_file") a symlink, a non-regular file, another user's
 * file or one with several names, and one too large to be ours.
 */
export async function readCompanion(file: string): Promise<CompanionText | undefined> {
  let handle: FileHandle;
  try {
    handle = await openNoFollow(file, O_RDONLY);
  } catch (error) {
    if (isMissing(error)) return undefined;
    if (errorCode(error) === "ELOOP") {
      throw refuseCompanion(companionProblem(file, await lstat(file)) ?? `${file} is a symlink.`);
    }
    throw asStoreError(error, `Cannot read ${file}`);
  }
  try {
    const info = await handle.stat();
    const problem = companionProblem(file, info);
    if (problem !== undefined) throw refuseCompanion(problem);
    if (info.size > MAX_PEM_BYTES) {
      throw refuseCompanion(
        `${file} is ${info.size} bytes, too large to be a PEM file serve wrote.`,
      );
    }
    return { text: await handle.readFile("latin1"), mode: info.mode & 0o777, uid: info.uid };
  } finally {
    await handle.close();
  }
}

/**
 * Puts `text` under the name `file` with permission bits `mode`: written and
 * synced to `<file>.tmp` (created anew, never through a symlink), then renamed
 * over `file`. The caller syncs the directory.
 */
export async function writeCompanion(file: string, text: string, mode: number): Promise<void> {
  const temporary = `${file}.tmp`;
  await clearLeftover(temporary);
  try {
    await writeFileAtomic(file, temporary, text, mode);
  } catch (error) {
    throw asStoreError(error, `Cannot write ${file}`);
  }
}
