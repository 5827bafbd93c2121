/**
 * Fixed rate-limit windows aligned to the clock: a minute window is
 * [k*60 s, (k+1)*60 s) of Unix time and a day window is a UTC day, so every
 * client sees the same, predictable reset moments.
 *
 * The headers describe the window that binds first: an exhausted window (the
 * later-resetting one when both are), else the one with fewer requests left
 * (the minute window on a tie).
 *
 * A client that keeps sending while limited is banned: more than `banAfter`
 * requests rejected within one limited period (until the binding window resets)
 * bans it for `banMs`; a ban is not extended by further requests. When a ban
 * ends, its rejections are forgotten: a request after it, with the window still
 * exhausted, gets a plain 429 whose Retry-After is that window's real reset, and
 * only `banAfter` more rejections ban it again.
 */
import type { WindowLimits } from "./keys.js";

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export interface BanPolicy {
  /** Rejections tolerated within one limited period before a ban. */
  banAfter: number;
  banMs: number;
}

export const DEFAULT_BAN_POLICY: BanPolicy = { banAfter: 10, banMs: 10 * MINUTE_MS };

/** Counters of one key, or of one client address for requests without a valid key. */
export class RateBucket {
  minuteWindow = -1;
  minuteCount = 0;
  dayWindow = -1;
  dayCount = 0;
  limitedUntilMs = 0;
  rejectedInPeriod = 0;
  bannedUntilMs = 0;
}

type Verdict = "allowed" | "rate_limited" | "banned";

export interface RateDecision {
  verdict: Verdict;
  limit: number;
  remaining: number;
  /** Unix seconds: end of the binding window, or of the ban. */
  resetSeconds: number;
  /** Whole seconds to wait; 0 when allowed. Never ends before `resetSeconds`. */
  retryAfterSeconds: number;
}

function roll(bucket: RateBucket, nowMs: number): void {
  const minute = Math.floor(nowMs / MINUTE_MS);
  if (minute !== bucket.minuteWindow) {
    bucket.minuteWindow = minute;
    bucket.minuteCount = 0;
  }
  const day = Math.floor(nowMs / DAY_MS);
  if (day !== bucket.dayWindow) {
    bucket.dayWindow = day;
    bucket.dayCount = 0;
  }
}

/** Counts one request against `bucket` when it is allowed, and says what to answer. */
export function takeRequest(
  bucket: RateBucket,
  limits: WindowLimits,
  nowMs: number,
  policy: BanPolicy,
): RateDecision {
  roll(bucket, nowMs);
  if (bucket.bannedUntilMs > nowMs) return banDecision(bucket, limits, nowMs);
  if (bucket.bannedUntilMs !== 0) {
    bucket.bannedUntilMs = 0;
    bucket.rejectedInPeriod = 0;
  }
  const minuteLeft = limits.perMinute - bucket.minuteCount;
  const dayLeft = limits.perDay - bucket.dayCount;
  if (minuteLeft <= 0 || dayLeft <= 0) {
    const byDay = dayLeft <= 0;
    const resetMs = byDay ? (bucket.dayWindow + 1) * DAY_MS : (bucket.minuteWindow + 1) * MINUTE_MS;
    if (nowMs >= bucket.limitedUntilMs) {
      bucket.limitedUntilMs = resetMs;
      bucket.rejectedInPeriod = 0;
    }
    if (++bucket.rejectedInPeriod > policy.banAfter) {
      // Whole seconds, so Retry-After and X-RateLimit-Reset name the same moment.
      bucket.bannedUntilMs = Math.ceil((nowMs + policy.banMs) / 1000) * 1000;
      return banDecision(bucket, limits, nowMs);
    }
    return {
      verdict: "rate_limited",
      limit: byDay ? limits.perDay : limits.perMinute,
      remaining: 0,
      resetSeconds: resetMs / 1000,
      retryAfterSeconds: Math.ceil((resetMs - nowMs) / 1000),
    };
  }
  bucket.minuteCount++;
  bucket.dayCount++;
  return describe(bucket, limits, "allowed");
}

/** The headers `bucket` would get now, without counting a request. */
export function peekRequest(bucket: RateBucket, limits: WindowLimits, nowMs: number): RateDecision {
  roll(bucket, nowMs);
  if (bucket.bannedUntilMs > nowMs) return banDecision(bucket, limits, nowMs);
  return describe(bucket, limits, "allowed");
}

function describe(bucket: RateBucket, limits: WindowLimits, verdict: Verdict): RateDecision {
  const minuteLeft = limits.perMinute - bucket.minuteCount;
  const dayLeft = limits.perDay - bucket.dayCount;
  const byDay = dayLeft <= 0 || (minuteLeft > 0 && dayLeft < minuteLeft);
  return byDay
    ? {
        verdict,
        limit: limits.perDay,
        remaining: Math.max(0, dayLeft),
        resetSeconds: ((bucket.dayWindow + 1) * DAY_MS) / 1000,
        retryAfterSeconds: 0,
      }
    : {
        verdict,
        limit: limits.perMinute,
        remaining: Math.max(0, minuteLeft),
        resetSeconds: ((bucket.minuteWindow + 1) * MINUTE_MS) / 1000,
        retryAfterSeconds: 0,
      };
}

function banDecision(bucket: RateBucket, limits: WindowLimits, nowMs: number): RateDecision {
  const dayExhausted = bucket.dayCount >= limits.perDay;
  return {
    verdict: "banned",
    limit: dayExhausted ? limits.perDay : limits.perMinute,
    remaining: 0,
    resetSeconds: bucket.bannedUntilMs / 1000,
    retryAfterSeconds: Math.ceil((bucket.bannedUntilMs - nowMs) / 1000),
  };
}

/** Buckets of clients without a valid key, by address; stale ones are dropped as it grows. */
export class AddressBuckets {
  private readonly buckets = new Map<string, RateBucket>();
  private sweepAt = 4096;

  get(address: string, nowMs: number): RateBucket {
    let bucket = this.buckets.get(address);
    if (bucket === undefined) {
      if (this.buckets.size >= this.sweepAt) this.sweep(nowMs);
      bucket = new RateBucket();
      this.buckets.set(address, bucket);
    }
    return bucket;
  }

  private sweep(nowMs: number): void {
    const today = Math.floor(nowMs / DAY_MS);
    for (const [address, bucket] of this.buckets) {
      if (bucket.dayWindow < today && bucket.bannedUntilMs <= nowMs) this.buckets.delete(address);
    }
    this.sweepAt = Math.max(4096, this.buckets.size * 2);
  }
}
