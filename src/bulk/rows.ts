/**
 * Rows as the bulk add sees them: each input record checked by the shared
 * schema (the server's own rules), and for a valid one the exact request body
 * and its digest. The digest ties a line of the results file to the content
 * that was sent, so `--resume` can tell that a row is still the same row.
 */
import { hash } from "node:crypto";
import { stringifyJson } from "../schema/json.js";
import type { NewPet } from "../schema/pet.js";
import { validateNewPet } from "../schema/validate.js";
import { parseCsv } from "./input/csv.js";
import type { InputFormat } from "./input/format.js";
import { parseJsonArray } from "./input/json-array.js";
import { parseNdjson } from "./input/ndjson.js";
import type { RecordParser } from "./input/records.js";
import type { InputSource } from "./input/source.js";

export interface RowProblem {
  /** The field at fault; absent when the record could not be read at all. */
  field?: string;
  message: string;
}

export interface Row {
  row: number;
  line: number;
  /** Present when the row is valid. */
  pet?: NewPet;
  /** The JSON body of the POST (present when valid). */
  body?: string;
  /** 16 hex digits of the SHA-256 of `body` (present when valid). */
  digest?: string;
  /** Present when the row is invalid. */
  problems?: RowProblem[];
}

const PARSERS: Record<InputFormat, RecordParser> = {
  csv: parseCsv,
  ndjson: parseNdjson,
  json: parseJsonArray,
};

export function digestOf(body: string): string {
  return hash("sha256", body, "hex").slice(0, 16);
}

/** `withBody`: also build the request body and its digest (not needed to count problems). */
export async function* readRows(source: InputSource, withBody = true): AsyncGenerator<Row> {
  for await (const record of PARSERS[source.format](source.chunks())) {
    const { row, line } = record;
    if (record.unreadable !== undefined) {
      yield { row, line, problems: [{ message: record.unreadable }] };
      continue;
    }
    const checked = validateNewPet(record.value);
    if (!checked.ok) {
      const problems = checked.problems.map((p) => ({ field: p.field, message: p.problem }));
      yield { row, line, problems };
      continue;
    }
    const pet = checked.value;
    if (!withBody) {
      yield { row, line, pet };
      continue;
    }
    const body = stringifyJson({ name: pet.name, categoryId: pet.categoryId, status: pet.status });
    yield { row, line, pet, body, digest: digestOf(body) };
  }
}

/** `row 3 (line 4): categoryId must be ...` */
export function describeProblem(row: { row: number; line: number }, problem: RowProblem): string {
  const where = `row ${row.row} (line ${row.line})`;
  return problem.field === undefined
    ? `${where}: ${problem.message}`
    : `${where}: ${problem.field} ${problem.message}`;
}
