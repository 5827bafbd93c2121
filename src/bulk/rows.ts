/**
 * Rows as the bulk add sees them: each input record checked by the shared
 * schema (the server's own rules), and for a valid one the exact request body.
 * Its digest ties a line of the results file to the content that was sent, so
 * `--resume` can tell that a row is still the same row: it is made only for a
 * row sent, and in the first pass for a row an earlier run sent (SHA-256 of
 * every row in both passes was a visible share of the CPU, docs/benchmarks.md).
 *
 * The first pass (firstPass) reads every row and keeps only counts and the
 * problems, so nothing is sent unless the whole input is good (or --skip-invalid
 * says to send the good rows); the second reads the rows again to send them.
 */
import { hash } from "node:crypto";
import { UsageError } from "../errors.js";
import type { IO } from "../io.js";
import type { NewPet } from "../schema/pet.js";
import { validateNewPet } from "../schema/validate.js";
import type { InputRecord } from "./input/input-record.js";
import type { InputSource } from "./input/source.js";
import { PriorState, wasSent, type PriorRuns } from "./prior-runs.js";
import type { RowProblem } from "./results.js";

export interface Row {
  row: number;
  line: number;
  /** The JSON body of the POST (present when valid). */
  body?: string;
  /** 16 hex digits of the SHA-256 of `body`: made for a row that is sent. */
  digest?: string;
  /** Present when the row is invalid. */
  problems?: RowProblem[];
}

/** What the first pass found: the rows the run starts from. */
export interface RunPlan {
  rows: number;
  invalid: number;
  /** Added by an earlier run (--resume). */
  previouslyAdded: number;
  /** Left unknown by an earlier run, and not sent again without --retry-unknown. */
  heldUnknown: number;
  /** Meant to be sent by this run. */
  toSend: number;
}

/** Rows named on stderr for a resume that does not match, or whose outcome is unknown. */
export const SHOWN = 20;

export function digestOf(body: string): string {
  return hash("sha256", body, "hex").slice(0, 16);
}

/** What stringifyJson gives for the NewPet, written out (the digest of --resume depends on it). */
export function petBody(pet: NewPet): string {
  const status = pet.status === undefined ? "" : `,"status":${JSON.stringify(pet.status)}`;
  return `{"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId}${status}}`;
}

/** A record checked: its body when valid, its problems when not. */
export function checkRecord(record: InputRecord): Row {
  const { row, line } = record;
  if (record.unreadable !== undefined)
    return { row, line, problems: [{ message: record.unreadable }] };
  const checked = validateNewPet(record.value);
  if (checked.ok) return { row, line, body: petBody(checked.value) };
  const problems = checked.problems.map((p) => ({ field: p.field, message: p.problem }));
  return { row, line, problems };
}

/**
 * Reads and checks every row (and, with --resume, compares it with the results
 * of earlier runs). Every problem is listed on stderr as it is found (a compiler's
 * habit): memory stays flat, and a spreadsheet's every typo is fixed in one round.
 */
export async function firstPass(
  source: InputSource,
  prior: PriorRuns | undefined,
  options: { retryUnknown: boolean; resume?: string },
  io: IO,
): Promise<RunPlan> {
  const plan: RunPlan = { rows: 0, invalid: 0, previouslyAdded: 0, heldUnknown: 0, toSend: 0 };
  const mismatches: string[] = [];
  let mismatchCount = 0;
  const mismatch = (text: string) => {
    if (mismatchCount++ < SHOWN) mismatches.push(text);
  };
  for await (const record of source.records()) {
    const row = checkRecord(record);
    plan.rows++;
    if (row.problems !== undefined) {
      if (plan.invalid++ === 0) io.stderr.write(`petstore add: problems in ${source.label}:\n`);
      for (const { field, message } of row.problems) {
        const what = field === undefined ? message : `${field} ${message}`;
        io.stderr.write(`  row ${row.row} (line ${row.line}): ${what}\n`);
      }
    }
    const state = prior?.state(row.row) ?? PriorState.None;
    const sent = wasSent(state);
    if (sent && !prior!.sameContent(row.row, row.body && digestOf(row.body))) {
      const was = state === PriorState.Added ? "added" : "sent";
      mismatch(`row ${row.row} (line ${row.line}) is not the row that was ${was} before`);
      continue;
    }
    if (row.problems !== undefined) continue;
    if (state === PriorState.Added) plan.previouslyAdded++;
    else if (sent && !options.retryUnknown) plan.heldUnknown++;
    else plan.toSend++;
  }
  if (plan.rows === 0) throw new UsageError(`${source.label} has no rows; nothing was sent`);
  for (const row of prior?.sentBeyond(plan.rows) ?? []) {
    mismatch(`row ${row} was sent before; the input has ${plan.rows} rows`);
  }
  if (mismatchCount > 0) {
    const more = mismatchCount > SHOWN ? `\n  and ${mismatchCount - SHOWN} more` : "";
    throw new UsageError(
      `${source.label} is not the input of the run recorded in ${options.resume}; nothing was sent:\n  ${mismatches.join("\n  ")}${more}`,
      "resume with the same input file (rows may be fixed, not moved), or start a new --results file",
    );
  }
  return plan;
}
