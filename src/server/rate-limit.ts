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

/** A refused request: nothing left until `untilMs`, a whole second. */
function refused(verdict: Verdict, limit: number, untilMs: number, nowMs: number): RateDecision {
  return {
    verdict,
    limit,
    remaining: 0,
    resetSeconds: Math.ceil(untilMs / 1000),
    retryAfterSeconds: Math.ceil((untilMs - nowMs) / 1000),
  };
}

function banned(bucket: RateBucket, limits: WindowLimits, nowMs: number): RateDecision {
  const limit = bucket.dayCount >= limits.perDay ? limits.perDay : limits.perMinute;
  return refused("banned", limit, bucket.bannedUntilMs, nowMs);
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
  if (bucket.bannedUntilMs > nowMs) return banned(bucket, limits, nowMs);
  const minuteEndMs = (minute + 1) * MINUTE_MS;
  const dayEndMs = (day + 1) * DAY_MS;
  if (count) {
    if (bucket.bannedUntilMs !== 0) {
      bucket.bannedUntilMs = 0;
      bucket.rejectedInPeriod = 0;
    }
    const byDay = bucket.dayCount >= limits.perDay;
    if (byDay || bucket.minuteCount >= limits.perMinute) {
      const resetMs = byDay ? dayEndMs : minuteEndMs;
      if (reject(bucket, resetMs, nowMs, policy)) return banned(bucket, limits, nowMs);
      return refused("rate_limited", byDay ? limits.perDay : limits.perMinute, resetMs, nowMs);
    }
    bucket.minuteCount++;
    bucket.dayCount++;
  }
  const minuteLeft = limits.perMinute - bucket.minuteCount;
  const dayLeft = limits.perDay - bucket.dayCount;
  const byDay = dayLeft <= 0 || (minuteLeft > 0 && dayLeft < minuteLeft);
  return {
    verdict: "allowed",
    limit: byDay ? limits.perDay : limits.perMinute,
    remaining: Math.max(0, byDay ? dayLeft : minuteLeft),
    resetSeconds: (byDay ? dayEndMs : minuteEndMs) / 1000,
    retryAfterSeconds: 0,
  };
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
  return refused("rate_limited", limit, resetMs, nowMs);
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
