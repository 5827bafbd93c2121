/**
 * What becomes of each row of a run, in one place: every outcome, once known, is
 * counted, written to the results file and, for scripts, to stdout (`--json` or
 * `-q`); the counts make the progress a person watches and the run's report.
 *
 * Progress: on a terminal (stderr), a spinner line redrawn a few times a second:
 * rows done, rows left, the rate, and the wait when the rate limit binds.
 * Elsewhere (pipes, CI logs), a plain line every few seconds and one when a long
 * wait begins.
 *
 * `--json`: NDJSON, one line per row, written as the row's outcome is known (so in
 * the order answers arrive; `row` says which row a line is about):
 *   {"row":5,"line":6,"outcome":"added","id":123}
 *   {"row":5,"line":6,"outcome":"added","id":123,"earlier":true}    added by an earlier run (--resume)
 *   {"row":5,"line":6,"outcome":"invalid","error":{"message":"…","problems":[{"field":"status","message":"…"}]}}
 *   {"row":5,"line":6,"outcome":"failed","error":{"message":"…","status":400,"code":"…"}}
 *   {"row":5,"line":6,"outcome":"unknown","error":{"message":"…"}}       (with "earlier":true when held back)
 * Ids are int64, written exactly (never through a double).
 *
 * `-q`: the id of each added row (in this run or an earlier one), one per line, in
 * input order. Answers arrive out of order, so the rows the run reached wait in a
 * reorder buffer until every row before theirs is settled. It is bounded: a row is
 * not read while it is WINDOW rows or more ahead of the first row not yet printed
 * (see room), so one slow row holds back at most WINDOW rows, never the whole input.
 */
import { EXIT, type ExitCode, type PetstoreError } from "../errors.js";
import { formatWait, isoTime } from "../client/wait-text.js";
import type { IO, Spinner } from "../io.js";
import { escapeJsonControls } from "../output/text-escape.js";
import { stringifyJson } from "../schema/json.js";
import type { ResultLine, ResultsWriter } from "./results.js";
import { SHOWN, type RunPlan } from "./rows.js";

const REDRAW_MS = 200;
/** Between plain lines when stderr is not a terminal. */
const PLAIN_EVERY_MS = 5_000;
const LONG_WAIT_MS = 2_000;

/** `12,345`, as en-US writes it; whole numbers without Intl (its first use costs milliseconds). */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
}

/** Time already spent: tenths under 10 s ("1.3 s", not a rounded-up "2 s"), else to the second. */
export function formatElapsed(ms: number): string {
  if (ms < 9_950) return `${(Math.max(ms, 100) / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return seconds < 120 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

export type StdoutMode = "json" | "ids";

/** The most rows that `-q` holds between the first row not yet printed and the last read. */
export const WINDOW = 4096;

/** -q: a row whose outcome is not known yet. */
const SENDING = "sending";

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

export class Outcomes {
  private added = 0;
  private failed = 0;
  /** Unknown in this run. */
  private unknown = 0;
  /** Unknown in this run, or held from an earlier one; the first SHOWN of them. */
  private unknownTotal = 0;
  private readonly unknownRows: number[] = [];
  /** -q: the rows reached and not printed: their id, undefined (nothing to print) or SENDING. */
  private readonly held = new Map<number, bigint | undefined | typeof SENDING>();
  /** -q: the first row not yet printed. */
  private next = 1;
  /** -q: the row waiting for room (see room). */
  private roomFor: { row: number; resume: () => void } | undefined;
  private spinner: Spinner | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly startedAt: number;
  private waitUntil: number | undefined;
  private waitWhy = "";
  private lastPlainAt: number;

  constructor(
    private readonly plan: RunPlan,
    private readonly io: IO,
    private readonly now: () => number,
    private readonly results?: ResultsWriter,
    private readonly stdout?: StdoutMode,
    private readonly window = WINDOW,
  ) {
    this.startedAt = this.lastPlainAt = now();
  }

  /** Rows this run sent and settled. */
  get done(): number {
    return this.added + this.failed + this.unknown;
  }

  /** -q: rows held, for the tests of the bound. */
  get heldRows(): number {
    return this.held.size;
  }

  /** -q: a promise to wait for before the row is read, when it is too far ahead (see WINDOW). */
  room(row: number): Promise<void> | undefined {
    if (this.stdout !== "ids" || row < this.next + this.window) return undefined;
    return new Promise((resume) => (this.roomFor = { row, resume }));
  }

  /** A row about to be sent (its outcome is recorded, or it is settled, later). */
  sending(row: number): void {
    if (this.stdout === "ids") this.hold(row, SENDING);
  }

  /** Done with a row sent, whatever became of it: without an outcome, it has no id to print. */
  settled(row: number): void {
    if (this.held.get(row) === SENDING) this.hold(row, undefined);
  }

  /** A row's outcome in this run (invalid: not sent), to the results file and stdout. */
  record(line: ResultLine): void {
    const { row, outcome } = line;
    if (outcome === "added") this.added++;
    else if (outcome === "failed") this.failed++;
    else if (outcome === "unknown") this.unknown++;
    if (outcome === "unknown") this.unknownOne(row);
    this.results?.record(line, outcome !== "invalid");
    if (this.stdout === "ids") return this.hold(row, line.id);
    if (this.stdout === undefined) return;
    if (outcome === "added") return this.writeJson({ row, line: line.line, outcome, id: line.id });
    const problems = line.problems ?? [];
    const error: unknown =
      outcome !== "invalid"
        ? line.error
        : {
            message: problems
              .map((p) => (p.field === undefined ? p.message : `${p.field} ${p.message}`))
              .join("; "),
            problems,
          };
    this.writeJson({ row, line: line.line, outcome, error });
  }

  /** A row not sent again: an earlier run added it (with this id), or left it unknown. */
  earlier(row: number, line: number, outcome: "added" | "unknown", id?: bigint): void {
    if (outcome === "unknown") this.unknownOne(row);
    if (this.stdout === "ids") return this.hold(row, id);
    if (outcome === "added") return this.writeJson({ row, line, outcome, id, earlier: true });
    const message =
      "an earlier run sent this row and its outcome is unknown; it was not sent again (--retry-unknown sends it)";
    this.writeJson({ row, line, outcome, earlier: true, error: { message } });
  }

  /**
   * Exit 0 when every row is added; else, in this order: 7 when a row's outcome is
   * unknown, the code of what stopped the run (3 auth, 5 rate limit, 6 network,
   * 8 proxy, 9 results file, 130 Ctrl-C), 2 for rows that were invalid or refused.
   */
  report(elapsedMs: number, stopped: PetstoreError | undefined): BulkReport {
    const { plan, added, failed, unknownTotal } = this;
    const notSent = Math.max(0, plan.toSend - this.done);
    const exitCode =
      added + plan.previouslyAdded === plan.rows
        ? EXIT.OK
        : unknownTotal > 0
          ? EXIT.OUTCOME_UNKNOWN
          : (stopped?.exitCode ??
            (failed + plan.invalid + notSent > 0 ? EXIT.USAGE : EXIT.UNEXPECTED));
    return {
      rows: plan.rows,
      added,
      previouslyAdded: plan.previouslyAdded,
      invalid: plan.invalid,
      failed,
      unknown: unknownTotal,
      notSent,
      unknownRows: this.unknownRows,
      elapsedMs,
      exitCode,
      stopped,
      resultsFile: this.results?.path,
    };
  }

  private unknownOne(row: number): void {
    if (this.unknownTotal++ < SHOWN) this.unknownRows.push(row);
  }

  /** -q: what the row prints, once every row before it is settled; prints what it can. */
  private hold(row: number, value: bigint | undefined | typeof SENDING): void {
    this.held.set(row, value);
    let text = "";
    for (;;) {
      const id = this.held.get(this.next);
      if (id === SENDING || !this.held.has(this.next)) break;
      this.held.delete(this.next++);
      if (id !== undefined) text += `${id}\n`;
    }
    if (text !== "") this.write(text);
    if (this.roomFor !== undefined && this.roomFor.row < this.next + this.window) {
      this.roomFor.resume();
      this.roomFor = undefined;
    }
  }

  private writeJson(value: Record<string, unknown>): void {
    this.write(escapeJsonControls(stringifyJson(value)) + "\n");
  }

  private write(text: string): void {
    if (this.stdout !== undefined) this.io.stdout.write(text);
  }

  start(): void {
    this.spinner = this.io.startSpinner(this.text());
    this.timer = setInterval(() => this.tick(), REDRAW_MS);
    this.timer.unref();
  }

  /** The rate limit (or a Retry-After) holds every request until then; undefined when it no longer does. */
  waiting(untilLocalMs: number | undefined, why: string): void {
    const now = this.now();
    const long = untilLocalMs !== undefined && untilLocalMs - now >= LONG_WAIT_MS;
    const wasWaiting = this.waitUntil !== undefined;
    if (!long && !wasWaiting) return;
    this.waitUntil = long ? untilLocalMs : undefined;
    this.waitWhy = why;
    if (long && !wasWaiting && this.spinner === undefined) {
      this.io.stderr.write(
        `petstore add: ${why}; waiting ${formatWait(untilLocalMs - now)} (until ${isoTime(untilLocalMs).slice(-13, -5)} UTC)\n`,
      );
    }
    this.spinner?.update(this.text());
  }

  stop(): void {
    clearInterval(this.timer);
    this.spinner?.stop();
    this.spinner = undefined;
  }

  private text(): string {
    const now = this.now();
    const done = this.done;
    const left = Math.max(0, this.plan.toSend - done);
    const span = now - this.startedAt;
    let text = `adding pets: ${formatCount(done)} of ${formatCount(this.plan.toSend)} done, ${formatCount(left)} left`;
    if (span >= 1_000) text += `, ${formatCount(Math.round((done * 1000) / span))} rows/s`;
    if (this.waitUntil !== undefined && this.waitUntil > now) {
      text += `; ${this.waitWhy}: next request in ${formatWait(this.waitUntil - now)}`;
    }
    return text;
  }

  private tick(): void {
    const text = this.text();
    if (this.spinner) return this.spinner.update(text);
    const now = this.now();
    if (now - this.lastPlainAt >= PLAIN_EVERY_MS) {
      this.lastPlainAt = now;
      this.io.stderr.write(`petstore add: ${text.slice("adding pets: ".length)}\n`);
    }
  }
}
