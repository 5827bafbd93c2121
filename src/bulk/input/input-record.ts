/**
 * What the three input formats have in common: a stream of records, each with
 * its row number (1-based, in input order: the identity a results file and
 * `--resume` rely on) and the line it starts on (what a person looks for in an
 * editor). A record holds the candidate NewPet as parsed, or why it could not be
 * parsed; whether it is a valid pet is decided later, by the shared schema.
 */
import { ERROR_KIND, KindedError } from "../../schema/kinded-error.js";

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
