/**
 * What a person watching a run sees (the counts are outcomes.ts'). On a terminal
 * (stderr), a spinner line redrawn a few times a second: rows done, rows left,
 * the rate, and the wait when the rate limit binds. Elsewhere (pipes, CI logs), a
 * plain line every few seconds and one when a long wait begins.
 */
import { formatWait, isoTime } from "../client/wait-text.js";
import type { IO, Spinner } from "../io.js";

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

/** What the progress line counts: the rows done, of those meant to be sent. */
export interface Counts {
  readonly done: number;
}

export class Progress {
  private spinner: Spinner | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly startedAt: number;
  private waitUntil: number | undefined;
  private waitWhy = "";
  private lastPlainAt: number;

  constructor(
    private readonly io: IO,
    private readonly counts: Counts,
    private readonly toSend: number,
    private readonly now: () => number,
  ) {
    this.startedAt = this.lastPlainAt = now();
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
    if (this.spinner) this.spinner.update(this.text());
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.spinner?.stop();
    this.spinner = undefined;
  }

  private text(): string {
    const now = this.now();
    const done = this.counts.done;
    const left = Math.max(0, this.toSend - done);
    const span = now - this.startedAt;
    let text = `adding pets: ${formatCount(done)} of ${formatCount(this.toSend)} done, ${formatCount(left)} left`;
    if (span >= 1_000) text += `, ${formatCount(Math.round((done * 1000) / span))} rows/s`;
    if (this.waitUntil !== undefined && this.waitUntil > now) {
      text += `; ${this.waitWhy}: next request in ${formatWait(this.waitUntil - now)}`;
    }
    return text;
  }

  private tick(): void {
    const text = this.text();
    if (this.spinner) {
      this.spinner.update(text);
      return;
    }
    const now = this.now();
    if (now - this.lastPlainAt >= PLAIN_EVERY_MS) {
      this.lastPlainAt = now;
      this.io.stderr.write(`petstore add: ${text.slice("adding pets: ".length)}\n`);
    }
  }
}
