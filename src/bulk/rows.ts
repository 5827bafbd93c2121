/**
 * Rows as the bulk add sees them: each input record checked by the shared
 * schema (the server's own rules), and for a valid one the exact request body
 * and its digest. The digest ties a line of the results file to the content
 * that was sent, so `--resume` can tell that a row is still the same row.
 */
import { hash } from "node:crypto";
import { INT64_MAX, INT64_MIN, NAME_MAX_LENGTH, type NewPet } from "../schema/pet.js";
import { validateNewPet } from "../schema/validate.js";
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

export function digestOf(body: string): string {
  return hash("sha256", body, "hex").slice(0, 16);
}

/**
 * The common case without a schema run (most of the cost of reading a row): a
 * record that NewPet certainly accepts, as NewPet would give it back. Anything
 * else (undefined) goes through validateNewPet, which also words the problems.
 */
export function plainlyValid(value: unknown): NewPet | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (key !== "name" && key !== "categoryId" && key !== "status") return undefined;
    if (!Object.prototype.hasOwnProperty.call(record, key)) return undefined;
  }
  const { name, categoryId, status } = record;
  if (typeof name !== "string" || name.length < 1 || name.length > NAME_MAX_LENGTH)
    return undefined;
  if (name.trim().length === 0) return undefined;
  if (typeof categoryId !== "bigint" || categoryId < INT64_MIN || categoryId > INT64_MAX) {
    return undefined;
  }
  if (status === undefined) return "status" in record ? undefined : { name, categoryId };
  if (status !== "available" && status !== "pending" && status !== "sold") return undefined;
  return { name, categoryId, status };
}

/** What stringifyJson gives for the NewPet, written out (the digest of --resume depends on it). */
export function petBody(pet: NewPet): string {
  const status = pet.status === undefined ? "" : `,"status":${JSON.stringify(pet.status)}`;
  return `{"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId}${status}}`;
}

/** `withBody`: also build the request body and its digest (not needed to count problems). */
export function* readRows(source: InputSource, withBody = true): Generator<Row> {
  for (const record of source.records()) {
    const { row, line } = record;
    if (record.unreadable !== undefined) {
      yield { row, line, problems: [{ message: record.unreadable }] };
      continue;
    }
    let pet = plainlyValid(record.value);
    if (pet === undefined) {
      const checked = validateNewPet(record.value);
      if (!checked.ok) {
        const problems = checked.problems.map((p) => ({ field: p.field, message: p.problem }));
        yield { row, line, problems };
        continue;
      }
      pet = checked.value;
    }
    if (!withBody) {
      yield { row, line, pet };
      continue;
    }
    const body = petBody(pet);
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
