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
import { errorReply, type Reply } from "./reply.js";

const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

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

/**
 * Where a request of `bucket` stands, counted when it is allowed and `count`
 * (one that could not even be read is not: its answer only shows where the
 * client stands).
 */
export function takeRequest(
  bucket: RateBucket,
  limits: WindowLimits,
  nowMs: number,
  policy: BanPolicy,
  count = true,
): RateDecision {
  roll(bucket, nowMs);
  if (bucket.bannedUntilMs > nowMs) return banDecision(bucket, limits, nowMs);
  if (!count) return describe(bucket, limits);
  if (bucket.bannedUntilMs !== 0) {
    bucket.bannedUntilMs = 0;
    bucket.rejectedInPeriod = 0;
  }
  const minuteLeft = limits.perMinute - bucket.minuteCount;
  const dayLeft = limits.perDay - bucket.dayCount;
  if (minuteLeft <= 0 || dayLeft <= 0) {
    const byDay = dayLeft <= 0;
    const resetMs = byDay ? (bucket.dayWindow + 1) * DAY_MS : (bucket.minuteWindow + 1) * MINUTE_MS;
    if (reject(bucket, resetMs, nowMs, policy)) return banDecision(bucket, limits, nowMs);
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
  return describe(bucket, limits);
}

/**
 * Counts a rejection in the limited period that ends at `resetMs` (a new one
 * when the last is over); true when it is one too many, and bans.
 */
function reject(bucket: RateBucket, resetMs: number, nowMs: number, policy: BanPolicy): boolean {
  if (nowMs >= bucket.limitedUntilMs) {
    bucket.limitedUntilMs = resetMs;
    bucket.rejectedInPeriod = 0;
  }
  if (++bucket.rejectedInPeriod <= policy.banAfter) return false;
  // Whole seconds, so Retry-After and X-RateLimit-Reset name the same moment.
  bucket.bannedUntilMs = Math.ceil((nowMs + policy.banMs) / 1000) * 1000;
  return true;
}

/**
 * A scripted 429 (POST /__admin/next): it counts toward a ban as a real one does,
 * its Retry-After being the limited period it starts.
 */
export function scriptedRejection(
  bucket: RateBucket,
  limit: number,
  nowMs: number,
  retryAfterSeconds: number,
  policy: BanPolicy,
): RateDecision {
  const resetMs = nowMs + retryAfterSeconds * 1000;
  reject(bucket, resetMs, nowMs, policy);
  const resetSeconds = Math.ceil(resetMs / 1000);
  return { verdict: "rate_limited", limit, remaining: 0, resetSeconds, retryAfterSeconds };
}

/** Where an allowed request leaves `bucket`: the window that binds first. */
function describe(bucket: RateBucket, limits: WindowLimits): RateDecision {
  const minuteLeft = limits.perMinute - bucket.minuteCount;
  const dayLeft = limits.perDay - bucket.dayCount;
  const byDay = dayLeft <= 0 || (minuteLeft > 0 && dayLeft < minuteLeft);
  const resetMs = byDay ? (bucket.dayWindow + 1) * DAY_MS : (bucket.minuteWindow + 1) * MINUTE_MS;
  return {
    verdict: "allowed",
    limit: byDay ? limits.perDay : limits.perMinute,
    remaining: Math.max(0, byDay ? dayLeft : minuteLeft),
    resetSeconds: resetMs / 1000,
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

/** What an unlimited key is told: a limit that never runs out, reset at the end of the minute. */
export function unlimited(nowMs: number): RateDecision {
  const resetSeconds = (Math.floor(nowMs / MINUTE_MS) + 1) * 60;
  return {
    verdict: "allowed",
    limit: 2147483647,
    remaining: 2147483647,
    resetSeconds,
    retryAfterSeconds: 0,
  };
}

export interface LimitOutcome {
  /** The X-RateLimit headers, as a flat list. */
  headers: readonly string[];
  /** The 429 to answer instead, when the request is over its limit. */
  refusal?: Reply;
}

export function outcome(decision: RateDecision): LimitOutcome {
  const headers = [
    "X-RateLimit-Limit",
    String(decision.limit),
    "X-RateLimit-Remaining",
    String(decision.remaining),
    "X-RateLimit-Reset",
    String(decision.resetSeconds),
  ];
  if (decision.verdict === "allowed") return { headers };
  const retryAfter = ["Retry-After", String(decision.retryAfterSeconds)];
  const refusal =
    decision.verdict === "banned"
      ? errorReply(
          "banned",
          `too many requests while rate limited: banned for ${decision.retryAfterSeconds} s; wait for Retry-After before retrying`,
          retryAfter,
        )
      : errorReply(
          "rate_limited",
          `rate limit of ${decision.limit} requests exceeded; retry after ${decision.retryAfterSeconds} s`,
          retryAfter,
        );
  return { headers, refusal };
}
