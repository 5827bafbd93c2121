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

export class FakeClock implements Clock {
  private offsetMs = 0;
  private dateSecond = NaN;
  private dateText = "";

  constructor(private readonly base: Clock = Date) {}

  now(): number {
    return this.base.now() + this.offsetMs;
  }

  /** Moves the clock forward; `seconds` is checked by the caller (0 to MAX_ADVANCE_SECONDS). */
  advance(seconds: number): void {
    this.offsetMs += Math.round(seconds * 1000);
  }

  /** How far the clock has been moved, in seconds. */
  get offsetSeconds(): number {
    return this.offsetMs / 1000;
  }

  /**
   * The `Date` header for now, or undefined while the clock is the system's
   * (node:http then writes its own). Made once a second.
   */
  dateHeader(): string | undefined {
    if (this.offsetMs === 0 && this.base === Date) return undefined;
    const second = Math.floor(this.now() / 1000);
    if (second !== this.dateSecond) {
      this.dateSecond = second;
      this.dateText = new Date(second * 1000).toUTCString();
    }
    return this.dateText;
  }
}
