/**
 * The outcomes of the rows of one run, counted as they are known, and what a
 * person watching sees. On a terminal (stderr), a spinner line redrawn a few
 * times a second: rows done, rows left, the rate, and the wait when the rate
 * limit binds. Elsewhere (pipes, CI logs), a plain line every few seconds and one
 * when a long wait begins. At the end, the report: totals and the exit code.
 */
import { withinDates } from "../client/http-date.js";
import { isoTime } from "../client/wait-text.js";
import { EXIT, type ExitCode, type PetstoreError } from "../errors.js";
import type { IO, Spinner } from "../io.js";

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

export interface ProgressOptions {
  now: () => number;
  /** Between plain lines when stderr is not a terminal. */
  plainEveryMs?: number;
}

const REDRAW_MS = 200;
const RATE_WINDOW_MS = 10_000;
const LONG_WAIT_MS = 2_000;

/** `12,345`, as en-US writes it; whole numbers without Intl (its first use costs milliseconds). */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
}

/** A wait still ahead, rounded up: a wait is never announced shorter than it is. */
export function formatDuration(ms: number): string {
  return wholeSeconds(Math.ceil(withinDates(ms) / 1000));
}

/** Time already spent: tenths under 10 s ("1.3 s", not a rounded-up "2 s"), else to the second. */
export function formatElapsed(ms: number): string {
  if (ms < 9_950) return `${(Math.max(ms, 100) / 1000).toFixed(1)} s`;
  return wholeSeconds(Math.round(ms / 1000));
}

function wholeSeconds(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

export class Progress {
  /** This run's outcomes. */
  private added = 0;
  private failed = 0;
  private unknown = 0;
  /** Unknown in this run, or held from an earlier one; the first SHOWN of them. */
  private unknownTotal = 0;
  private readonly unknownRows: number[] = [];
  private spinner: Spinner | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private samples: Array<{ at: number; done: number }> = [];
  private waitUntil: number | undefined;
  private waitWhy = "";
  private lastPlainAt: number;
  private readonly plainEveryMs: number;

  constructor(
    private readonly io: IO,
    private readonly plan: RunPlan,
    private readonly options: ProgressOptions,
  ) {
    this.plainEveryMs = options.plainEveryMs ?? 5_000;
    this.lastPlainAt = options.now();
  }

  rowAdded(): void {
    this.added++;
  }

  rowFailed(): void {
    this.failed++;
  }

  /** A row sent by this run whose outcome is unknown. */
  rowUnknown(row: number): void {
    this.unknown++;
    this.unknownBefore(row);
  }

  /** A row left unknown by an earlier run and not sent again. */
  unknownBefore(row: number): void {
    this.unknownTotal++;
    if (this.unknownRows.length < SHOWN) this.unknownRows.push(row);
  }

  /**
   * Exit 0 when every row is added; else, in this order: 7 when a row's outcome is
   * unknown, the code of what stopped the run (3 auth, 5 rate limit, 6 network,
   * 8 proxy, 9 results file, 130 Ctrl-C), 2 for rows that were invalid or refused.
   */
  report(elapsedMs: number, stopped: PetstoreError | undefined, resultsFile?: string): BulkReport {
    const { plan, added, failed, unknownTotal } = this;
    const notSent = Math.max(0, plan.toSend - this.done());
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
      ...(stopped === undefined ? {} : { stopped }),
      ...(resultsFile === undefined ? {} : { resultsFile }),
    };
  }

  start(): void {
    this.spinner = this.io.startSpinner(this.text());
    this.timer = setInterval(() => this.tick(), REDRAW_MS);
    this.timer.unref();
  }

  /** The rate limit (or a Retry-After) holds every request until then; undefined when it no longer does. */
  waiting(untilLocalMs: number | undefined, why: string): void {
    const now = this.options.now();
    const long = untilLocalMs !== undefined && untilLocalMs - now >= LONG_WAIT_MS;
    const wasWaiting = this.waitUntil !== undefined;
    if (!long && !wasWaiting) return;
    this.waitUntil = long ? untilLocalMs : undefined;
    this.waitWhy = why;
    if (long && !wasWaiting && this.spinner === undefined) {
      this.io.stderr.write(
        `petstore add: ${why}; waiting ${formatDuration(untilLocalMs - now)} (until ${isoTime(untilLocalMs).slice(-13, -5)} UTC)\n`,
      );
    }
    if (this.spinner) this.spinner.update(this.text());
  }

  note(line: string): void {
    if (this.spinner) this.spinner.update(this.text());
    this.io.stderr.write(`petstore add: ${line}\n`);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.spinner?.stop();
    this.spinner = undefined;
  }

  private done(): number {
    return this.added + this.failed + this.unknown;
  }

  private rate(now: number): number | undefined {
    const done = this.done();
    this.samples.push({ at: now, done });
    while (this.samples.length > 2 && this.samples[0]!.at < now - RATE_WINDOW_MS)
      this.samples.shift();
    const first = this.samples[0]!;
    const span = now - first.at;
    return span >= 1_000 ? ((done - first.done) * 1000) / span : undefined;
  }

  private text(): string {
    const now = this.options.now();
    const done = this.done();
    const left = Math.max(0, this.plan.toSend - done);
    const rate = this.rate(now);
    let text = `adding pets: ${formatCount(done)} of ${formatCount(this.plan.toSend)} done, ${formatCount(left)} left`;
    if (rate !== undefined) text += `, ${formatCount(Math.round(rate))} rows/s`;
    if (this.waitUntil !== undefined && this.waitUntil > now) {
      text += `; ${this.waitWhy}: next request in ${formatDuration(this.waitUntil - now)}`;
    }
    return text;
  }

  private tick(): void {
    const text = this.text();
    if (this.spinner) {
      this.spinner.update(text);
      return;
    }
    const now = this.options.now();
    if (now - this.lastPlainAt >= this.plainEveryMs) {
      this.lastPlainAt = now;
      this.io.stderr.write(`petstore add: ${text.slice("adding pets: ".length)}\n`);
    }
  }
}
