/**
 * The pace of a bulk add: when the next request may leave (how many may be in
 * flight at all is the number of senders). Requests wait in `acquire`, and look
 * again whenever an answer comes back or the moment the pacer named arrives. A
 * request may leave when
 *
 *   Remaining (the freshest reading) - finished requests (the reading may not
 *   include) - requests in flight > 0
 *
 * and otherwise waits for an answer (which brings a fresher reading) or for the
 * reset. A finished request is known to be included in a reading when it
 * finished before the request that brought the reading was issued, or when it
 * read a larger Remaining of the same window (the service counted it earlier).
 * Every other finished request that the service may have counted (an answer, or
 * a connection lost after sending) is subtracted. Requests answered 429, or that
 * never connected, were not counted.
 *
 * Once the window has reset nothing is known of the next one (the daily window
 * may bind with fewer requests left), so one request goes alone and its answer
 * opens the way. A pause (Retry-After, backoff) holds every request until it
 * ends; the longest pause stands.
 *
 * X-RateLimit-Reset is a moment on the service's clock; waiting for it by the
 * local clock would send too early when the local clock is ahead (429s), and
 * wait too long when it is behind. Every answer's Date header (whole seconds)
 * bounds the offset from below: the answer was dated no later than it arrived.
 * The largest such bound is kept, so a wait computed from it never ends before
 * the service's moment, and ends at most about a second after it. Without Date
 * headers the local clock is taken as the service's.
 *
 * `decide`, `issue` and `complete` take explicit times, so the arithmetic is
 * tested over whole simulated windows and days (test/bulk/pacer.test.ts).
 */
import { parseHttpDate } from "../client/headers.js";
import type { RateLimitInfo } from "../http-response.js";

export interface Timers {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = { now: Date.now, setTimeout, clearTimeout };

/** What is left, and the service's time (ms) at which the window resets. */
type LimitReading = Pick<RateLimitInfo, "remaining" | "resetAt">;

export interface Completion {
  /** The answer had the three X-RateLimit headers. */
  limit?: LimitReading;
  /** Some answer came back (with or without the headers). */
  answered: boolean;
  /** Whether the service may have counted the request against the limit. */
  counted: "yes" | "no" | "maybe";
}

export type Decision =
  | { go: true }
  | {
      go: false;
      /**
       * answers: as many in flight as the limit has room for; pause:
       * a Retry-After or a backoff; limit: used up until the reset; probe: the
       * window has reset, and one request finds out what the new one allows.
       */
      reason: "answers" | "pause" | "limit" | "probe";
      untilLocalMs?: number;
    };

export type Wait = Extract<Decision, { go: false }>;

export interface PacerOptions {
  /** Added to every reset: the service counts in whole seconds. */
  marginMs: number;
  timers: Timers;
  /** Told each time a request has to wait, and why. */
  onWait?: (wait: Wait) => void;
}

/** The longest delay a Node timer takes (a longer one fires at once, with a warning). */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Finished {
  issued: number;
  finished: number;
  limit?: LimitReading;
}

export class Pacer {
  private sequence = 0;
  private readonly inFlight = new Set<number>();
  /** The reading in force, and the request whose answer gave it. */
  private current: (LimitReading & { issued: number }) | undefined;
  private finished: Finished[] = [];
  private notBeforeLocalMs = 0;
  /** The service sends no rate-limit headers: only pauses hold requests back. */
  private unlimited = false;
  /** A lower bound of (service time - local time); undefined until a Date header is seen. */
  private offsetMs: number | undefined;
  /** Resolves the requests waiting, to look again (see changed). */
  private wake: (() => void) | undefined;
  private changes: Promise<void> | undefined;
  private timer: unknown;
  private closed = false;

  constructor(private readonly options: PacerOptions) {}

  /** An answer's Date header, received at that local moment. */
  observeDate(header: string | undefined, receivedAtLocalMs: number): void {
    const dated = parseHttpDate(header);
    if (dated === undefined) return;
    const bound = dated - receivedAtLocalMs;
    if (this.offsetMs === undefined || bound > this.offsetMs) this.offsetMs = bound;
  }

  /** The service's time now, at the earliest (so a wait for one of its moments is never short). */
  serviceNow(localMs: number): number {
    return localMs + (this.offsetMs ?? 0);
  }

  decide(nowLocalMs: number): Decision {
    if (nowLocalMs < this.notBeforeLocalMs) {
      return { go: false, reason: "pause", untilLocalMs: this.notBeforeLocalMs };
    }
    if (this.unlimited) return { go: true };
    const current = this.current;
    if (current === undefined || nowLocalMs >= this.resetLocal(current)) {
      return this.inFlight.size === 0 ? { go: true } : { go: false, reason: "probe" };
    }
    const left = current.remaining - this.unincluded();
    if (left - this.inFlight.size > 0) return { go: true };
    if (left > 0) return { go: false, reason: "answers" };
    return { go: false, reason: "limit", untilLocalMs: this.resetLocal(current) };
  }

  /** Call when `decide` said go; the number identifies the request in `complete`. */
  issue(): number {
    const issued = ++this.sequence;
    this.inFlight.add(issued);
    return issued;
  }

  /** Holds every request until then (a Retry-After, a backoff); a shorter pause never ends a longer one. */
  pauseUntil(localMs: number): void {
    if (localMs > this.notBeforeLocalMs) this.notBeforeLocalMs = localMs;
  }

  /** `pauseUntilLocalMs` holds every request before the line moves on. */
  complete(issued: number, completion: Completion, pauseUntilLocalMs?: number): void {
    if (pauseUntilLocalMs !== undefined) this.pauseUntil(pauseUntilLocalMs);
    if (this.inFlight.delete(issued)) {
      const entry: Finished = { issued, finished: ++this.sequence };
      const { limit } = completion;
      if (limit !== undefined) {
        entry.limit = limit;
        this.unlimited = false;
        this.merge(issued, limit);
      } else if (completion.answered) {
        this.unlimited = true;
      }
      if (completion.counted !== "no") this.finished.push(entry);
      // A finished request matters only to readings from requests issued before it finished.
      let floor = this.current?.issued ?? Infinity;
      for (const inFlight of this.inFlight) floor = Math.min(floor, inFlight);
      this.finished = this.finished.filter((finished) => finished.finished >= floor);
    }
    this.notify();
  }

  /** Resolves with the request's number once it may go; undefined once the pacer is closed. */
  async acquire(): Promise<number | undefined> {
    while (!this.closed) {
      const decision = this.decide(this.options.timers.now());
      if (decision.go) return this.issue();
      this.options.onWait?.(decision); // which may close the pacer
      if (!this.closed) await this.changed(decision.untilLocalMs);
    }
    return undefined;
  }

  /** No request is let through any more; those waiting get undefined. */
  close(): void {
    this.closed = true;
    this.notify();
  }

  private resetLocal(reading: LimitReading): number {
    return reading.resetAt - (this.offsetMs ?? 0) + this.options.marginMs;
  }

  /** The tighter of two readings: a later window, or fewer left in the same one. */
  private merge(issued: number, limit: LimitReading): void {
    const current = this.current;
    if (
      current === undefined ||
      limit.resetAt > current.resetAt ||
      (limit.resetAt === current.resetAt &&
        (limit.remaining < current.remaining ||
          (limit.remaining === current.remaining && issued > current.issued)))
    ) {
      this.current = { remaining: limit.remaining, resetAt: limit.resetAt, issued };
    }
  }

  /** Finished requests the current reading may not include. */
  private unincluded(): number {
    const current = this.current!;
    let count = 0;
    for (const { issued, finished, limit } of this.finished) {
      if (finished < current.issued || issued === current.issued) continue;
      if (limit?.resetAt === current.resetAt && limit.remaining > current.remaining) continue;
      count++;
    }
    return count;
  }

  /** Resolves once an answer came back, the pacer closed, or at `untilLocalMs`. */
  private changed(untilLocalMs: number | undefined): Promise<void> {
    this.changes ??= new Promise((resolve) => (this.wake = resolve));
    if (untilLocalMs !== undefined && this.timer === undefined) {
      const { timers } = this.options;
      // A wait past a timer's range is waited in pieces: the requests look again after each.
      const delay = Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(untilLocalMs - timers.now())));
      this.timer = timers.setTimeout(() => this.notify(), delay);
    }
    return this.changes;
  }

  private notify(): void {
    if (this.timer !== undefined) this.options.timers.clearTimeout(this.timer);
    this.timer = undefined;
    const wake = this.wake;
    this.changes = this.wake = undefined;
    wake?.();
  }
}
