/**
 * Output that could not be written is a failure (exit 1), never a silent success:
 * `id=$(petstore add ... -q)` on a full disk must not look like it worked. The
 * message names the system error as a person reads it, and its code. Output that
 * could not be made, by a `--jq` filter that failed on the data, is the same
 * failure, said as jq says it.
 */
import { getSystemErrorMap } from "node:util";
import { EXIT, PetstoreError } from "../errors.js";

/** The code of the failure of a `--jq` filter (src/output/jq.ts), a string: it crosses bundles. */
export const JQ_FAILED = "ERR_PETSTORE_JQ";

/** "no space left on device (ENOSPC)": libuv's description of the errno, and its name. */
function describeSystemError(error: NodeJS.ErrnoException): string {
  const known = typeof error.errno === "number" ? getSystemErrorMap().get(error.errno) : undefined;
  if (known) return `${known[1]} (${known[0]})`;
  return error.code ? `${error.message} (${error.code})` : error.message;
}

/** `before` opens the message ("pet 42 was added, but "); `hint` says what to do next. */
export function stdoutWriteError(
  error: NodeJS.ErrnoException,
  before = "",
  hint?: string,
): PetstoreError {
  const what =
    error.code === JQ_FAILED
      ? `the --jq filter failed: ${error.message}`
      : `could not write to standard output: ${describeSystemError(error)}`;
  return new PetstoreError(`${before}${what}`, EXIT.UNEXPECTED, hint);
}
