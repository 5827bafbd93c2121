/**
 * Whether other users can read the config file that holds the API keys. ssh
 * refuses a private key file open to its group or others; petstore keeps
 * working with such a config (one others may write is refused already, see
 * config-safety.ts) and warns, saying how to make it private. What a platform
 * can tell of who may read a file is file-safety's (nothing, on Windows).
 */
import type { Stats } from "node:fs";
import { ownershipProblem } from "../files/file-safety.js";

/**
 * The warning for the config file at `path` that holds keys, when others may read
 * it; `stats` are those of the file as it was opened and read.
 */
export function exposureWarning(
  path: string,
  stats: Pick<Stats, "uid" | "mode"> | undefined,
  holdsKeys: boolean,
): string | undefined {
  if (!holdsKeys || stats === undefined) return undefined;
  const problem = ownershipProblem(stats, { rootMayOwn: true, othersMay: "nothing" });
  // Only the read bits expose the keys (one others may write never gets this far).
  if (problem?.kind !== "readable-by-others" || (problem.mode & 0o044) === 0) return undefined;
  const octal = (problem.mode & 0o777).toString(8).padStart(4, "0");
  return `the config file ${path} can be read by other users (mode ${octal}), and it holds API keys; \`chmod 600 ${path}\` makes it private`;
}
