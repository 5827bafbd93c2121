/**
 * The fake's clock: the clock it was given (the system's by default) moved
 * forward by `POST /__admin/clock` or `clock.advance()`. Rate-limit windows, bans,
 * `X-RateLimit-Reset`, `Date` and the request journal's times all read it, so a
 * test can cross a minute or a day window without waiting.
 */

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** How far the clock may be moved in one step: ten years. */
export const MAX_ADVANCE_SECONDS = 10 * 366 * 86_400;

/**
 * The latest time the clock may be moved to. Every date the fake sends is at most
 * a day later (a day window's reset, a ban's end), so each keeps a four-digit year,
 * as the HTTP date format needs, and stays far inside what a JavaScript Date holds.
 */
export const LATEST_CLOCK_MS = Date.UTC(9999, 0, 1);

export class FakeClock implements Clock {
  private offsetMs = 0;

  constructor(private readonly base: Clock = Date) {}

  now(): number {
    return this.base.now() + this.offsetMs;
  }

  /**
   * Moves the clock forward, `seconds` being 0 to MAX_ADVANCE_SECONDS; returns
   * why not, without moving it, when that would pass LATEST_CLOCK_MS.
   */
  advance(seconds: number): string | undefined {
    const stepMs = Math.round(seconds * 1000);
    const nowMs = this.now();
    if (nowMs + stepMs > LATEST_CLOCK_MS) {
      const left = Math.max(0, Math.floor((LATEST_CLOCK_MS - nowMs) / 1000));
      return (
        `moving the clock ${seconds} seconds from ${isoTime(nowMs)} would pass ` +
        `${isoTime(LATEST_CLOCK_MS)}, the latest time the fake can show (every date it sends ` +
        `keeps a four-digit year); ${left} seconds are left`
      );
    }
    this.offsetMs += stepMs;
    return undefined;
  }

  /** How far the clock has been moved, in seconds. */
  get offsetSeconds(): number {
    return this.offsetMs / 1000;
  }

  /** The `Date` header for now, or undefined while the clock is the system's (node:http writes its own). */
  dateHeader(): string | undefined {
    if (this.offsetMs === 0 && this.base === Date) return undefined;
    const date = new Date(this.now());
    // A clock given to startServer may be out of a Date's range: node's own Date then.
    return Number.isNaN(date.getTime()) ? undefined : date.toUTCString();
  }
}

/** ISO 8601 of Unix milliseconds; a time out of a Date's range is shown as its milliseconds, never thrown. */
export function isoTime(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(ms) : date.toISOString();
}
