/**
 * The first pass of `petstore add --from`: every row is read and checked with
 * the shared schema (and, with --resume, against the results of earlier runs),
 * keeping only counts and the problems, so nothing is sent unless the whole
 * input is good (or --skip-invalid says to send the good rows).
 */
import { UsageError } from "../errors.js";
import type { IO } from "../io.js";
import type { InputSource } from "./input/source.js";
import { PriorState, type PriorRuns } from "./prior-runs.js";
import type { ResultsWriter } from "./results.js";
import { describeProblem, readRows } from "./rows.js";
import { SHOWN, type RunPlan } from "./progress.js";

export interface FirstPass extends RunPlan {
  /** Left unknown by an earlier run, and not sent again without --retry-unknown. */
  heldUnknown: number;
}

function problemsHeading(label: string): string {
  return `petstore add: problems in ${label}:\n`;
}

export async function firstPass(
  source: InputSource,
  prior: PriorRuns | undefined,
  options: { retryUnknown: boolean; resume?: string },
  io: IO,
): Promise<FirstPass> {
  const pass: FirstPass = {
    rows: 0,
    invalid: 0,
    previouslyAdded: 0,
    heldUnknown: 0,
    toSend: 0,
  };
  const mismatches: string[] = [];
  let mismatchCount = 0;
  for (const row of readRows(source, prior !== undefined)) {
    pass.rows++;
    if (row.problems !== undefined) {
      // Every problem, as it is found (a compiler's habit): memory stays flat, and a
      // spreadsheet's every typo is fixed in one round, whether or not --results is given.
      if (pass.invalid++ === 0) io.stderr.write(problemsHeading(source.label));
      for (const problem of row.problems) io.stderr.write(`  ${describeProblem(row, problem)}\n`);
    }
    const state = prior?.state(row.row) ?? PriorState.None;
    const sent =
      state === PriorState.Added || state === PriorState.Sending || state === PriorState.Unknown;
    if (sent && !prior!.sameContent(row.row, row.digest)) {
      if (mismatchCount++ < SHOWN) {
        mismatches.push(
          `row ${row.row} (line ${row.line}) is not the row that was ${state === PriorState.Added ? "added" : "sent"} before`,
        );
      }
      continue;
    }
    if (row.problems !== undefined) continue;
    if (state === PriorState.Added) pass.previouslyAdded++;
    else if (sent && !options.retryUnknown) pass.heldUnknown++;
    else pass.toSend++;
  }
  if (prior !== undefined) {
    for (const row of prior.sentBeyond(pass.rows)) {
      if (mismatchCount++ < SHOWN)
        mismatches.push(`row ${row} was sent before; the input has ${pass.rows} rows`);
    }
  }
  if (mismatchCount > 0) {
    const more = mismatchCount > SHOWN ? `\n  and ${mismatchCount - SHOWN} more` : "";
    throw new UsageError(
      `${source.label} is not the input of the run recorded in ${options.resume}; nothing was sent:\n  ${mismatches.join("\n  ")}${more}`,
      "resume with the same input file (rows may be fixed, not moved), or start a new --results file",
    );
  }
  return pass;
}

/** The problems of a refused input, to its results file. */
export async function recordInvalid(source: InputSource, results: ResultsWriter): Promise<void> {
  for (const row of readRows(source, false)) {
    if (row.problems === undefined) continue;
    results.record({ row: row.row, line: row.line, outcome: "invalid", problems: row.problems });
  }
}
