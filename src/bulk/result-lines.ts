/**
 * The lines of the results file (see results.ts): what each says, how a
 * service's error is kept (cut to a bound), and the most bytes a row's lines
 * can take, for the room claimed before the row is sent (results.ts).
 */
import { stringifyJson } from "../schema/json.js";
import type { RowProblem } from "./rows.js";

export const OUTCOMES = ["sending", "added", "invalid", "failed", "unknown"] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * The most characters of a service's message a results line keeps (and of its
 * error code, which is meant to be a short word): a service may send a
 * message of a megabyte, and a file of such lines would be a hundred times the
 * input. The rest is cut, and the line says how much.
 */
export const MAX_STORED_MESSAGE = 500;
export const MAX_STORED_CODE = 100;

/** The most characters cutText adds: "… (N more characters)". */
const CUT_MARKER = 40;

/** `text`, or its first `max` characters (a surrogate pair kept whole) and how many were cut. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, end)}… (${text.length - end} more characters)`;
}

export interface ErrorSummary {
  message: string;
  /** The HTTP status of the answer, when there was one. */
  status?: number;
  /** The `code` of the service's Error body, when it had one. */
  code?: string;
}

export interface ResultLine {
  row: number;
  line: number;
  outcome: Outcome;
  digest?: string;
  id?: bigint;
  problems?: RowProblem[];
  error?: ErrorSummary;
}

export interface RunHeader {
  input: string;
  format: string;
  startedAt: string;
  resumed?: string;
}

/** The `sending` line of a row, but its row and line numbers (its digest is 16 hex digits). */
const SENDING_BYTES = '{"row":,"line":,"outcome":"sending","digest":"0123456789abcdef"}\n'.length;
/**
 * The longest outcome line of a row sent (`added`, `failed`, `unknown`), but its
 * row and line numbers: an error whose message and code are as long as they are
 * kept, every character written as a 6-byte escape, and the rest of the line.
 */
const OUTCOME_BYTES = 256 + 6 * (MAX_STORED_MESSAGE + MAX_STORED_CODE + 2 * CUT_MARKER);

const numberBytes = (row: number, line: number) => String(row).length + String(line).length;

/** The most bytes the `sending` line of this row takes. */
export function sendingBytes(row: number, line: number): number {
  return SENDING_BYTES + numberBytes(row, line);
}

/** The most bytes the outcome line of this row (once sent) takes. */
export function outcomeBytes(row: number, line: number): number {
  return OUTCOME_BYTES + numberBytes(row, line);
}

/** The JSON of one line (sending() and added() write those two kinds directly). */
export function lineText(line: ResultLine): string {
  return stringifyJson({
    row: line.row,
    line: line.line,
    outcome: line.outcome,
    id: line.id,
    digest: line.digest,
    problems: line.problems,
    error: line.error,
  });
}
