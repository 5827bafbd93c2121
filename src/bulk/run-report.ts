/**
 * The report of an `add --from` run: the outcomes counted as the rows are sent
 * (the progress lines read the same counts), then the totals and the exit code.
 */
import { EXIT, type ExitCode, type PetstoreError } from "../errors.js";
import type { Counts } from "./progress.js";

export interface BulkReport {
  rows: number;
  added: number;
  /** Added by an earlier run (--resume). */
  previouslyAdded: number;
  invalid: number;
  failed: number;
  /** Outcome unknown: in this run, or left so by an earlier one and not sent again. */
  unknown: number;
  /** Meant to be sent, but the run stopped first. */
  notSent: number;
  /** Up to SHOWN rows whose outcome is unknown. */
  unknownRows: number[];
  elapsedMs: number;
  exitCode: ExitCode;
  /** The results file this run wrote (--results, --resume, or the one of a long run). */
  resultsFile?: string;
  /** Why the run stopped early, when it did. */
  stopped?: PetstoreError;
}

/** Rows named on stderr for a resume that does not match, or whose outcome is unknown. */
export const SHOWN = 20;

/** What the first pass found (first-pass.ts): the rows the run starts from. */
export interface RunPlan {
  rows: number;
  invalid: number;
  /** Added by an earlier run (--resume). */
  previouslyAdded: number;
  /** Meant to be sent by this run. */
  toSend: number;
}

/** The outcomes of the rows of one run, counted as they are known. */
export class RunTally {
  /** This run's outcomes: what the progress lines show. */
  readonly counts: Counts;
  private readonly unknownRows: number[] = [];
  /** Unknown in this run, or held from an earlier one. */
  private unknownTotal = 0;

  constructor(private readonly pass: RunPlan) {
    this.counts = { rows: pass.rows, toSend: pass.toSend, added: 0, failed: 0, unknown: 0 };
  }

  added(): void {
    this.counts.added++;
  }

  failed(): void {
    this.counts.failed++;
  }

  /** A row sent by this run whose outcome is unknown. */
  unknown(row: number): void {
    this.counts.unknown++;
    this.unknownBefore(row);
  }

  /** A row left unknown by an earlier run and not sent again. */
  unknownBefore(row: number): void {
    this.unknownTotal++;
    if (this.unknownRows.length < SHOWN) this.unknownRows.push(row);
  }

  report(elapsedMs: number, stopped: PetstoreError | undefined, resultsFile?: string): BulkReport {
    const { pass, counts, unknownTotal } = this;
    const notSent = Math.max(0, pass.toSend - counts.added - counts.failed - counts.unknown);
    const report: BulkReport = {
      rows: pass.rows,
      added: counts.added,
      previouslyAdded: pass.previouslyAdded,
      invalid: pass.invalid,
      failed: counts.failed,
      unknown: unknownTotal,
      notSent,
      unknownRows: this.unknownRows,
      elapsedMs,
      exitCode: exitCodeOf(
        counts.added + pass.previouslyAdded === pass.rows,
        unknownTotal,
        stopped,
        counts.failed + pass.invalid + notSent,
      ),
    };
    if (stopped !== undefined) report.stopped = stopped;
    if (resultsFile !== undefined) report.resultsFile = resultsFile;
    return report;
  }
}

/**
 * 0 when every row is added; else, in this order: 7 when a row's outcome is
 * unknown, the code of what stopped the run (3 auth, 5 rate limit, 6 network,
 * 130 Ctrl-C), 2 for rows that were invalid or refused by the service.
 */
function exitCodeOf(
  allAdded: boolean,
  unknown: number,
  stopped: PetstoreError | undefined,
  notAdded: number,
): ExitCode {
  if (allAdded) return EXIT.OK;
  if (unknown > 0) return EXIT.OUTCOME_UNKNOWN;
  if (stopped !== undefined) return stopped.exitCode;
  return notAdded > 0 ? EXIT.USAGE : EXIT.UNEXPECTED;
}
