/**
 * Output that could not be written is a failure (exit 1), never a silent success:
 * `id=$(petstore add ... -q)` on a full disk must not look like it worked. The
 * message names the system error as a person reads it, and its code.
 */
import { getSystemErrorMap } from "node:util";
import { EXIT, PetstoreError } from "../errors.js";

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
  return new PetstoreError(
    `${before}could not write to standard output: ${describeSystemError(error)}`,
    EXIT.UNEXPECTED,
    hint,
  );
}
