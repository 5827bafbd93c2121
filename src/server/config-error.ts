/**
 * A server option that cannot be used (bad key spec, latency, port in use...).
 * The message is for a person and names the option; the `serve` command turns it
 * into a usage error.
 */
import { readFileSync, statSync } from "node:fs";
import { whyNotRegular, whyUnreadable } from "../files/file-kind.js";
import { ERROR_KIND, KindedError } from "../schema/kinded-error.js";

export class ServerConfigError extends KindedError {
  static override [ERROR_KIND] = "ServerConfigError";
}

/**
 * A file a flag names (`label`: the flag and the path), read whole: refused with a
 * ServerConfigError naming it when it is not a regular file (a FIFO would block the
 * start, a device never end), when it is over `maxBytes`, or when it cannot be read.
 */
export function readGivenFile(
  file: string,
  label: string,
  what: string,
  maxBytes: number,
  encoding: BufferEncoding,
): string {
  const refused = (why: string) => new ServerConfigError(`${label}: ${why}`);
  let size: number;
  try {
    const why = whyNotRegular(file);
    if (why !== undefined) throw refused(`${why}, not a regular file. Give ${what}.`);
    ({ size } = statSync(file));
    if (size <= maxBytes) return readFileSync(file, encoding);
  } catch (error) {
    if (error instanceof ServerConfigError) throw error;
    throw refused(`cannot read it (${whyUnreadable(error)}).`);
  }
  throw refused(`${size} bytes is too large for ${what} (at most ${maxBytes}).`);
}
