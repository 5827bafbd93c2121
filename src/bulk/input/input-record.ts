/**
 * What the three input formats have in common: a stream of records, each with
 * its row number (1-based, in input order: the identity a results file and
 * `--resume` rely on) and the line it starts on (what a person looks for in an
 * editor). A record holds the candidate NewPet as parsed, or why it could not be
 * parsed; whether it is a valid pet is decided later, by the shared schema.
 */

export interface InputRecord {
  /** 1-based position among the records (the CSV header is not a record). */
  row: number;
  /** 1-based line where the record starts. */
  line: number;
  /** The candidate pet, with integers as bigint (as `parseJson` gives them). */
  value?: unknown;
  /** Why the record could not be read as a value at all (then `value` is absent). */
  unreadable?: string;
}

import { parseJson } from "../../schema/json.js";
import { ERROR_KIND, KindedError } from "../../schema/kinded-error.js";

/**
 * A record's JSON as `parseJson` reads it (integers as bigint; the object may
 * have the usual prototype, which no reader of a record consults), most of the
 * time without running it. The usual record, compact JSON of strings and
 * integers that need no escape, is read by the engine's JSON.parse and accepted
 * only when writing it back gives the very same text: that rules out duplicate
 * keys, integers beyond 2^53, fractions, escapes and nesting, each of which goes
 * to `parseJson` (which also words any syntax error).
 */
export function parseRecordJson(text: string): unknown {
  if (text.charCodeAt(0) !== 0x7b /* { */) return parseJson(text);
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return parseJson(text);
  }
  // Flat first: writing back a value nested thousands deep would overflow the stack,
  // and parseJson refuses such nesting with a row error of its own.
  for (const key in value) {
    const field = value[key];
    if ((typeof field !== "number" && typeof field !== "string") || key === "__proto__") {
      return parseJson(text);
    }
  }
  if (JSON.stringify(value) !== text) return parseJson(text);
  for (const key in value) {
    const field = value[key];
    if (typeof field === "number") {
      if (!Number.isSafeInteger(field)) return parseJson(text);
      value[key] = BigInt(field);
    }
  }
  return value;
}

/**
 * A problem that makes the rest of the input unreadable (an unterminated quote,
 * an array that is not closed): nothing can be trusted after it, so nothing is sent.
 */
export class InputFormatError extends KindedError {
  static override [ERROR_KIND] = "InputFormatError";
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column?: number,
  ) {
    super(
      column === undefined
        ? `line ${line}: ${reason}`
        : `line ${line}, column ${column}: ${reason}`,
    );
  }
}

/** A record this long is not a pet (names have at most 200 characters): memory stays bounded. */
export const MAX_RECORD_CHARS = 1024 * 1024;

export interface ParseOptions {
  /** CSV: columns the header names that are not a pet's are ignored instead of refused. */
  ignoreUnknownColumns?: boolean;
  /** CSV: the first characters of the input, where the delimiter is found. */
  head?: string;
}

export type RecordParser = (
  chunks: AsyncIterable<string>,
  options?: ParseOptions,
) => AsyncGenerator<InputRecord>;
