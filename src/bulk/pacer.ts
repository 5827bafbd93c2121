/**
 * When the next request may go: the bulk add's model of the rate limit.
 *
 * The service counts requests in fixed windows and reports, on every answer,
 * what is left of the window that binds first and when it resets. With several
 * requests in flight, a reported Remaining is stale by the requests the service
 * counted after it. So a request is issued only when
 *
 *   remaining - (requests in flight) - (finished requests the reading may not include) > 0
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
 * opens the way. Resets are moments of the service's clock (see ServerClock),
 * plus a margin. A pause (Retry-After, backoff) holds every request until it ends.
 */
import type { ServerClock } from "./server-clock.js";

export interface LimitReading {
  remaining: number;
  /** The service's time, in ms, at which the window resets. */
  resetAt: number;
}

export interface Completion {
  /** The answer had the three X-RateLimit headers. */
  limit?: LimitReading;
  /** Some answer came back (with or without the headers). */
  answered: boolean;
  /** Whether the service may have counted the request against the limit. */
  counted: "yes" | "no" | "maybe";
}

type WaitReason =
  /** As many requests in flight as allowed, or as the limit has room for. */
  | "answers"
  /** A Retry-After or a backoff. */
  | "pause"
  /** The limit is used up until the reset. */
  | "limit"
  /** The window has reset: one request finds out what the new one allows. */
  | "probe";

export type Decision = { go: true } | { go: false; reason: WaitReason; untilLocalMs?: number };

interface Current extends LimitReading {
  /** Issue number of the request whose answer gave this reading. */
  issued: number;
}

interface Finished {
  issued: number;
  finished: number;
  limit?: LimitReading;
}

export interface PacerOptions {
  concurrency: number;
  /** Added to every reset: the service counts in whole seconds. */
  marginMs: number;
  clock: ServerClock;
}

export class RatePacer {
  private sequence = 0;
  private readonly inFlight = new Set<number>();
  private current: Current | undefined;
  private finished: Finished[] = [];
  private notBeforeLocalMs = 0;
  /** The service sends no rate-limit headers: only pauses and concurrency hold requests back. */
  private unlimited = false;

  constructor(private readonly options: PacerOptions) {}

  get requestsInFlight(): number {
    return this.inFlight.size;
  }

  /** The reading in force and its reset as a local moment, for progress lines. */
  window(nowLocalMs: number): { remaining: number; resetLocalMs: number } | undefined {
    const current = this.currentAt(nowLocalMs);
    if (current === undefined) return undefined;
    return {
      remaining: Math.max(0, current.remaining - this.unincluded(current)),
      resetLocalMs: this.resetLocal(current),
    };
  }

  decide(nowLocalMs: number): Decision {
    if (this.inFlight.size >= this.options.concurrency) return { go: false, reason: "answers" };
    if (nowLocalMs < this.notBeforeLocalMs) {
      return { go: false, reason: "pause", untilLocalMs: this.notBeforeLocalMs };
    }
    if (this.unlimited) return { go: true };
    const current = this.currentAt(nowLocalMs);
    if (current === undefined) {
      return this.inFlight.size === 0 ? { go: true } : { go: false, reason: "probe" };
    }
    const left = current.remaining - this.unincluded(current);
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

  complete(issued: number, completion: Completion): void {
    if (!this.inFlight.delete(issued)) return;
    const finished = ++this.sequence;
    const { limit } = completion;
    if (completion.counted !== "no") {
      const entry: Finished = { issued, finished };
      if (limit !== undefined) entry.limit = limit;
      this.finished.push(entry);
    }
    if (limit !== undefined) {
      this.unlimited = false;
      this.merge(issued, limit);
    } else if (completion.answered) {
      this.unlimited = true;
    }
    this.prune();
  }

  /** Holds every request until then (a Retry-After, a backoff). */
  pauseUntil(localMs: number): void {
    if (localMs > this.notBeforeLocalMs) this.notBeforeLocalMs = localMs;
  }

  private resetLocal(reading: LimitReading): number {
    return this.options.clock.toLocal(reading.resetAt) + this.options.marginMs;
  }

  private currentAt(nowLocalMs: number): Current | undefined {
    const current = this.current;
    return current !== undefined && nowLocalMs < this.resetLocal(current) ? current : undefined;
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
      if (current === undefined) {
        this.current = { remaining: limit.remaining, resetAt: limit.resetAt, issued };
      } else {
        current.remaining = limit.remaining;
        current.resetAt = limit.resetAt;
        current.issued = issued;
      }
    }
  }

  /** Finished requests the current reading may not include. */
  private unincluded(current: Current): number {
    let count = 0;
    for (const entry of this.finished) {
      if (entry.finished < current.issued || entry.issued === current.issued) continue;
      const limit = entry.limit;
      if (
        limit !== undefined &&
        limit.resetAt === current.resetAt &&
        limit.remaining > current.remaining
      ) {
        continue;
      }
      count++;
    }
    return count;
  }

  /** A finished request matters only to readings from requests issued before it finished. */
  private prune(): void {
    let floor = this.current?.issued ?? Infinity;
    for (const issued of this.inFlight) if (issued < floor) floor = issued;
    if (this.finished.length > 0 && this.finished[0]!.finished < floor) {
      this.finished = this.finished.filter((entry) => entry.finished >= floor);
    }
  }
}
