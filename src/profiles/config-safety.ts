/**
 * What petstore accepts as its config file and directory, as ssh does for its
 * keys: a regular file (not a link, FIFO or device), owned by the user (or root),
 * that no one else can write, in a directory that no one else can write. A file
 * someone else could plant or edit could send the key to their server.
 */
import { nonRegularKind } from "../files/file-kind.js";
import { ownershipProblem } from "../files/file-safety.js";
import { statSync, type Stats } from "node:fs";
import { dirname } from "node:path";
import { UsageError } from "../errors.js";
import { ERROR_KIND } from "../schema/kinded-error.js";

/**
 * `broken`: the content is not a config (auth login may replace it, keeping a
 * .bak); `unsafe`: the file or directory is refused and never written.
 */
export type ConfigProblemKind = "broken" | "unsafe";

export class ConfigFileError extends UsageError {
  static override [ERROR_KIND] = "ConfigFileError";
  constructor(
    message: string,
    hint: string,
    readonly kind: ConfigProblemKind,
  ) {
    super(message, hint);
  }
}

const ANOTHER_DIRECTORY = "PETSTORE_CONFIG_DIR chooses another directory";

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, "0");
}

/**
 * Owner and write permission, the same rule for the file and its directory.
 * Windows has neither to check (files/file-safety.ts): see privateByDefault.
 */
function ownerAndModeProblem(
  what: string,
  path: string,
  stats: Stats,
  privateMode: string,
): ConfigFileError | undefined {
  const problem = ownershipProblem(stats, { rootMayOwn: true });
  if (problem?.kind === "owner") {
    return new ConfigFileError(
      `the ${what} ${path} is owned by uid ${problem.uid}, not by you (uid ${problem.mine})`,
      `if it is yours, \`chown ${problem.mine} ${path}\`; otherwise ${ANOTHER_DIRECTORY}`,
      "unsafe",
    );
  }
  if (problem !== undefined) {
    return new ConfigFileError(
      `the ${what} ${path} is writable by other users (mode ${octal(problem.mode)})`,
      `\`chmod ${privateMode} ${path}\` makes it private`,
      "unsafe",
    );
  }
  return undefined;
}

/**
 * The first existing component of `dir` (itself or an ancestor) that is not a
 * directory, and the nearest existing ancestor otherwise.
 */
export function nearestExisting(dir: string): { path: string; stats: Stats } {
  for (let path = dir; ; path = dirname(path)) {
    try {
      return { path, stats: statSync(path) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== "ENOENT" && code !== "ENOTDIR") || dirname(path) === path) throw error;
    }
  }
}

export function notADirectory(path: string): ConfigFileError {
  return new ConfigFileError(`${path} is not a directory`, ANOTHER_DIRECTORY, "unsafe");
}

/** The config directory, as `stat` (following links) sees it. */
export function directoryProblem(dir: string, stats: Stats): ConfigFileError | undefined {
  if (!stats.isDirectory()) return notADirectory(dir);
  return ownerAndModeProblem("config directory", dir, stats, "700");
}

/**
 * The config file as `lstat` sees it (before it is opened: a FIFO or a device is
 * never opened) and as `fstat` sees the opened file.
 */
export function fileProblem(
  path: string,
  stats: Stats,
  linkTarget?: string,
): ConfigFileError | undefined {
  if (stats.isSymbolicLink()) {
    return new ConfigFileError(
      `the config file ${path} is a symbolic link${linkTarget === undefined ? "" : ` (to ${linkTarget})`}`,
      "petstore does not follow a link there (someone could point it at their own file); put the file itself in its place",
      "unsafe",
    );
  }
  if (!stats.isFile()) {
    return new ConfigFileError(
      `the config file ${path} is ${nonRegularKind(stats)}, not a regular file`,
      `remove it (\`petstore auth login\` then writes a new one), or ${ANOTHER_DIRECTORY}`,
      "unsafe",
    );
  }
  return ownerAndModeProblem("config file", path, stats, "600");
}

/**
 * The warning for the config file at `path` that holds keys, when others may read
 * it (as ssh refuses a private key open to its group or others; here the run goes
 * on, one others may write being refused already); `stats` are those of the file
 * as it was opened and read. Windows cannot tell who may read a file.
 */
export function exposureWarning(
  path: string,
  stats: Stats | undefined,
  holdsKeys: boolean,
): string | undefined {
  if (!holdsKeys || stats === undefined) return undefined;
  const problem = ownershipProblem(stats, { rootMayOwn: true, othersMay: "nothing" });
  // Only the read bits expose the keys.
  if (problem?.kind !== "readable-by-others" || (problem.mode & 0o044) === 0) return undefined;
  return `the config file ${path} can be read by other users (mode ${octal(problem.mode & 0o777)}), and it holds API keys; \`chmod 600 ${path}\` makes it private`;
}

/** An error of the file system while reading or writing the config, without any content. */
export function accessProblem(path: string, error: unknown): ConfigFileError {
  const code = (error as NodeJS.ErrnoException).code ?? String(error);
  return new ConfigFileError(
    `cannot read the config file ${path} (${code})`,
    ANOTHER_DIRECTORY,
    "unsafe",
  );
}
