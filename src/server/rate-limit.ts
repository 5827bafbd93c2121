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
 *
 * Keys are limited by their plan; requests without a valid key by client
 * address, at the free plan's limits; unlimited keys get constant headers.
 */
import { PLAN_LIMITS, type WindowLimits } from "./keys.js";
import { errorReply, type Reply } from "./reply.js";

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
  return describe(bucket, limits);
}

/** The headers `bucket` would get now, without counting a request. */
export function peekRequest(bucket: RateBucket, limits: WindowLimits, nowMs: number): RateDecision {
  roll(bucket, nowMs);
  if (bucket.bannedUntilMs > nowMs) return banDecision(bucket, limits, nowMs);
  return describe(bucket, limits);
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

/** What an unlimited key is told: a limit that never runs out. */
export const UNLIMITED = 2147483647;

/** What a key's limits are kept in (auth.ts's accounts). */
export interface RateAccount {
  /** null: unlimited. */
  limits: WindowLimits | null;
  bucket: RateBucket;
}

export interface LimitOutcome {
  /** The X-RateLimit headers, as a flat list. */
  headers: readonly string[];
  /** The 429 to answer instead, when the request is over its limit. */
  refusal?: Reply;
}

export class RequestLimiter {
  /** Buckets of clients without a valid key; stale ones are dropped as it grows. */
  private addresses = new Map<string, RateBucket>();
  private sweepAt = 4096;
  // Unlimited keys get the same headers for a whole minute: no work per request.
  private unlimitedHeaders: string[] = [];
  private unlimitedUntilMs = -Infinity;

  constructor(private readonly ban: BanPolicy) {}

  /**
   * `count`: whether the request uses up quota (one that could not even be
   * read does not: its answer only shows where the client stands).
   */
  /** `identity`: the account of a valid key, else why there is none (auth.ts). */
  check(
    identity: RateAccount | string,
    address: string | undefined,
    nowMs: number,
    count: boolean,
  ): LimitOutcome {
    if (typeof identity === "object" && identity.limits === null) {
      return { headers: this.headersForUnlimited(nowMs) };
    }
    const [bucket, limits] =
      typeof identity === "object"
        ? [identity.bucket, identity.limits!]
        : [this.addressBucket(address ?? "", nowMs), PLAN_LIMITS.free];
    const decision = count
      ? takeRequest(bucket, limits, nowMs, this.ban)
      : peekRequest(bucket, limits, nowMs);
    const headers = [
      "X-RateLimit-Limit",
      String(decision.limit),
      "X-RateLimit-Remaining",
      String(decision.remaining),
      "X-RateLimit-Reset",
      String(decision.resetSeconds),
    ];
    return { headers, refusal: decision.verdict === "allowed" ? undefined : refusal(decision) };
  }

  /** The windows and bans of clients without a valid key start over. */
  clearAddresses(): void {
    this.addresses = new Map();
  }

  private addressBucket(address: string, nowMs: number): RateBucket {
    let bucket = this.addresses.get(address);
    if (bucket === undefined) {
      if (this.addresses.size >= this.sweepAt) {
        const today = Math.floor(nowMs / DAY_MS);
        for (const [known, old] of this.addresses) {
          if (old.dayWindow < today && old.bannedUntilMs <= nowMs) this.addresses.delete(known);
        }
        this.sweepAt = Math.max(4096, this.addresses.size * 2);
      }
      bucket = new RateBucket();
      this.addresses.set(address, bucket);
    }
    return bucket;
  }

  private headersForUnlimited(nowMs: number): string[] {
    if (nowMs >= this.unlimitedUntilMs) {
      this.unlimitedUntilMs = (Math.floor(nowMs / 60_000) + 1) * 60_000;
      this.unlimitedHeaders = [
        "X-RateLimit-Limit",
        String(UNLIMITED),
        "X-RateLimit-Remaining",
        String(UNLIMITED),
        "X-RateLimit-Reset",
        String(this.unlimitedUntilMs / 1000),
      ];
    }
    return this.unlimitedHeaders;
  }
}

function refusal(decision: RateDecision): Reply {
  const retryAfter = ["Retry-After", String(decision.retryAfterSeconds)];
  if (decision.verdict === "banned") {
    return errorReply(
      "banned",
      `too many requests while rate limited: banned for ${decision.retryAfterSeconds} s; wait for Retry-After before retrying`,
      retryAfter,
    );
  }
  return errorReply(
    "rate_limited",
    `rate limit of ${decision.limit} requests exceeded; retry after ${decision.retryAfterSeconds} s`,
    retryAfter,
  );
}
