/**
 * Writing the config: the directory is checked (and created, 0700) before
 * anything is written in it; the file is read, changed and replaced under the
 * config's lock (config-lock.ts), by an atomic write that never follows a link
 * and always leaves a 0600 file owned by the writer (files/atomic-write.ts). A file that is not a config is replaced only when asked
 * (auth login), keeping it as config.json.bak; an unsafe one never is.
 */
import { mkdirSync, statfsSync, statSync } from "node:fs";
import { join } from "node:path";
import { PetstoreError, EXIT } from "../errors.js";
import { keepCopy, writeFileAtomic } from "../files/atomic-write.js";
import { unknownReaders } from "../files/file-safety.js";
import { CONFIG_FILE_NAME } from "./config-dir.js";
import type { ConfigUpdate, LoadedConfig, StoredConfig, UpdateOptions } from "./config-file.js";
import { withConfigLock } from "./config-lock.js";
import {
  ConfigFileError,
  directoryProblem,
  nearestExisting,
  notADirectory,
} from "./config-safety.js";

const CONFIG_DIR_MODE = 0o700;
const CONFIG_FILE_MODE = 0o600;

/**
 * Replaces a file of the config directory (the config, and the state file, which
 * the hot bundle reads but only this file writes), private to this user. Each
 * write has a temporary file of its own: the state file is written without a
 * lock, and what an earlier run left at `<file>.tmp` (a link, anything) is then
 * neither followed nor in the way.
 */
export async function writePrivateFile(path: string, text: string): Promise<void> {
  await writeFileAtomic(path, [text], {
    mode: CONFIG_FILE_MODE,
    temporary: `${path}.${crypto.randomUUID()}.tmp`,
  });
}

/**
 * File systems that are views of the kernel (statfs magic numbers, Linux): a
 * directory there cannot hold a file, and creating one can fail in odd ways.
 */
const VIRTUAL_FILE_SYSTEMS = new Map<number, string>([
  [0x9fa0, "proc"],
  [0x62656572, "sysfs"],
  [0x1cd1, "devpts"],
  [0x27e0eb, "cgroup"],
  [0x63677270, "cgroup2"],
  [0x64626720, "debugfs"],
  [0x74726163, "tracefs"],
  [0x73636673, "securityfs"],
  [0x62656570, "configfs"],
  [0xcafe4a11, "bpf"],
  [0xde5e81e4, "efivarfs"],
]);

function virtualFileSystem(path: string): string | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    return VIRTUAL_FILE_SYSTEMS.get(statfsSync(path).type);
  } catch {
    return undefined;
  }
}

function writeFailure(what: string, path: string, error: unknown): PetstoreError {
  const code = (error as NodeJS.ErrnoException).code ?? String(error);
  const diskProblem = ["ENOSPC", "EDQUOT", "EIO", "EROFS"].includes(code);
  return new PetstoreError(
    `cannot ${what} ${path} (${code})`,
    diskProblem ? EXIT.UNEXPECTED : EXIT.USAGE,
    "PETSTORE_CONFIG_DIR chooses another directory",
  );
}

/**
 * Whether `dir` could hold the config, without creating anything: the nearest
 * existing directory on its path is a directory on a real file system, and
 * `dir` itself, when it exists, is one petstore may use.
 */
export function checkConfigDir(dir: string): void {
  const existing = nearestExisting(dir);
  if (!existing.stats.isDirectory()) throw notADirectory(existing.path);
  const virtual = virtualFileSystem(existing.path);
  if (virtual !== undefined) {
    throw new ConfigFileError(
      `the config directory ${dir} is on ${virtual}, a virtual file system that cannot hold files`,
      "PETSTORE_CONFIG_DIR chooses another directory",
      "unsafe",
    );
  }
  if (existing.path === dir) {
    const problem = directoryProblem(dir, existing.stats);
    if (problem) throw problem;
  }
}

/**
 * Makes sure `dir` is a directory petstore may keep the config in, creating it
 * and any missing parent (mode 0700) after checking the nearest existing one.
 */
export function ensureConfigDir(dir: string): void {
  checkConfigDir(dir);
  try {
    // Made by another petstore meanwhile is no error: it is checked below like any directory.
    mkdirSync(dir, { recursive: true, mode: CONFIG_DIR_MODE });
  } catch (error) {
    throw writeFailure("create the config directory", dir, error);
  }
  const problem = directoryProblem(dir, statSync(dir));
  if (problem) throw problem;
}

/**
 * `load` is config-file.ts's reader, passed in so that this module (a file of
 * its own in the build, loaded only by the commands that write) does not carry
 * a second copy of it and its schema.
 */
export async function writeConfig(
  dir: string,
  change: (config: StoredConfig) => StoredConfig | void,
  options: UpdateOptions,
  load: (dir: string) => LoadedConfig,
  env: NodeJS.ProcessEnv,
): Promise<ConfigUpdate> {
  ensureConfigDir(dir);
  const path = join(dir, CONFIG_FILE_NAME);
  const unchecked = unknownReaders(path, env);
  return withConfigLock(path, async () => {
    const current = load(dir);
    const update: ConfigUpdate = { path, config: current.config };
    if (unchecked !== undefined) update.unchecked = unchecked;
    if (current.problem) {
      if (current.problem.kind !== "broken" || !options.replaceBroken) throw current.problem;
      update.backup = `${path}.bak`;
      update.replaced = current.problem;
      try {
        keepCopy(path, update.backup);
      } catch (error) {
        throw writeFailure("keep a copy of the config file as", update.backup, error);
      }
    }
    update.config = change(current.config) ?? current.config;
    try {
      const text = `${JSON.stringify(update.config, null, "\t")}\n`;
      await writePrivateFile(path, text);
    } catch (error) {
      throw writeFailure("write the config file", path, error);
    }
    return update;
  });
}
