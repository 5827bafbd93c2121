/**
 * Whether other users can read the API keys in the config file. ssh refuses a
 * private key file that its group or others may read; petstore keeps working
 * with such a config (0666 is refused already: others could change it) and
 * warns, saying how to make it private.
 */
import { lstatSync } from "node:fs";

/** The warning for a config file at `path` that holds keys, when others can read it. */
export function exposureWarning(path: string, holdsKeys: boolean): string | undefined {
  // Modes mean nothing where there are no uids (Windows).
  if (!holdsKeys || process.getuid === undefined) return undefined;
  let mode: number;
  try {
    mode = lstatSync(path).mode;
  } catch {
    return undefined;
  }
  if ((mode & 0o044) === 0) return undefined;
  const octal = (mode & 0o777).toString(8).padStart(4, "0");
  return `the config file ${path} can be read by other users (mode ${octal}), and it holds API keys; \`chmod 600 ${path}\` makes it private`;
}
