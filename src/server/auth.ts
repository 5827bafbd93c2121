/**
 * The keys the fake accepts, each with its plan's rate-limit windows, and the
 * windows of client addresses that send no valid key (limited at the free plan's
 * limits). Keys are held by their SHA-256 digest, and a presented key is hashed
 * before the lookup: the Map compares digests, so the time a lookup takes says
 * nothing about how close a guess was to a real key.
 *
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
import { hash } from "node:crypto";
import { PLAN_LIMITS, type ApiKeySpec, type WindowLimits } from "./keys.js";
import { errorReply, type Reply } from "./reply.js";
import type { DEFAULT_BAN_POLICY } from "./serve-defaults.js";

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** Rejections tolerated within one limited period before a ban, and the ban. */
export type BanPolicy = typeof DEFAULT_BAN_POLICY;

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

/**
 * Where a request stands: `remaining` until `resetMs` (a whole second), and the
 * whole seconds to wait when it is refused (0 when allowed), never ending before it.
 */
function decision(
  verdict: "allowed" | "rate_limited" | "banned",
  limit: number,
  remaining: number,
  resetMs: number,
  nowMs: number,
) {
  const retryAfterSeconds = verdict === "allowed" ? 0 : Math.ceil((resetMs - nowMs) / 1000);
  return { verdict, limit, remaining, resetSeconds: Math.ceil(resetMs / 1000), retryAfterSeconds };
}

function banned(bucket: RateBucket, limits: WindowLimits, nowMs: number) {
  const limit = bucket.dayCount >= limits.perDay ? limits.perDay : limits.perMinute;
  return decision("banned", limit, 0, bucket.bannedUntilMs, nowMs);
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
) {
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
      const [limit, resetMs] = byDay ? [limits.perDay, dayEndMs] : [limits.perMinute, minuteEndMs];
      if (reject(bucket, resetMs, nowMs, policy)) return banned(bucket, limits, nowMs);
      return decision("rate_limited", limit, 0, resetMs, nowMs);
    }
    bucket.minuteCount++;
    bucket.dayCount++;
  }
  const minuteLeft = limits.perMinute - bucket.minuteCount;
  const dayLeft = limits.perDay - bucket.dayCount;
  const byDay = dayLeft <= 0 || (minuteLeft > 0 && dayLeft < minuteLeft);
  const [limit, left, endMs] = byDay
    ? [limits.perDay, dayLeft, dayEndMs]
    : [limits.perMinute, minuteLeft, minuteEndMs];
  return decision("allowed", limit, Math.max(0, left), endMs, nowMs);
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

/** What an unlimited key is told: a limit that never runs out. */
const UNLIMITED = 2147483647;

/** The decision with its X-RateLimit headers, as a flat list, and the 429 to answer instead when over the limit. */
function outcome(decided: ReturnType<typeof takeRequest>) {
  const { verdict, limit, remaining, resetSeconds, retryAfterSeconds } = decided;
  const headers = [
    "X-RateLimit-Limit",
    String(limit),
    "X-RateLimit-Remaining",
    String(remaining),
    "X-RateLimit-Reset",
    String(resetSeconds),
  ];
  // Fields listed, not the decision spread: a spread on every request costs reads (benchmarks.md).
  if (verdict === "allowed") return { limit, remaining, resetSeconds, headers, refusal: undefined };
  const message =
    verdict === "banned"
      ? `too many requests while rate limited: banned for ${retryAfterSeconds} s; wait for Retry-After before retrying`
      : `rate limit of ${limit} requests exceeded; retry after ${retryAfterSeconds} s`;
  const refusal = errorReply(verdict, message, ["Retry-After", String(retryAfterSeconds)]);
  return { limit, remaining, resetSeconds, headers, refusal };
}

export interface Account extends ApiKeySpec {
  bucket: RateBucket;
}

/** No bearer credentials (or another scheme, RFC 6750 §3.1: no error code then). */
export const NO_KEY = "no_key";
/** Bearer credentials that match no key. */
export const UNKNOWN_KEY = "unknown_key";

export type Identity = Account | typeof NO_KEY | typeof UNKNOWN_KEY;

const digest = (key: string) => hash("sha256", key, "base64");

/** Whether two texts are the same, in a time that depends only on their lengths. */
function sameText(a: string, b: string): boolean {
  let differ = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) differ |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return differ === 0;
}

export class Keyring {
  /** By digest, in the order the keys were given, then added. */
  private readonly accounts = new Map<string, Account>();
  /** Windows of clients without a valid key; stale ones are dropped as it grows. */
  private addresses = new Map<string, RateBucket>();
  private sweepAt = 4096;
  /** Each connection's last Authorization header, with the digest of its token (identify()). */
  private readonly lastOf = new WeakMap<object, { header: string; digest?: string }>();

  constructor(
    keys: readonly ApiKeySpec[],
    private readonly ban: BanPolicy,
  ) {
    for (const spec of keys) this.add(spec);
  }

  /** Adds a key, or gives a known one this plan (its windows kept); true when new. */
  add({ key, plan, limits }: ApiKeySpec): boolean {
    const known = this.accounts.get(digest(key));
    if (known !== undefined) Object.assign(known, { plan, limits });
    else this.accounts.set(digest(key), { key, plan, limits, bucket: new RateBucket() });
    return known === undefined;
  }

  /** Whether the key was there. */
  remove(key: string): boolean {
    return this.accounts.delete(digest(key));
  }

  list(): Account[] {
    return [...this.accounts.values()];
  }

  /** Every window and ban, of keys and of addresses, starts over. */
  clear(): void {
    for (const account of this.accounts.values()) account.bucket = new RateBucket();
    this.addresses = new Map();
  }

  /**
   * From the Authorization header; the scheme name is case-insensitive (RFC 7235).
   * A kept-alive `connection` sends the same header again and again: the digest of
   * its token is kept with the header, which the next header is compared with in a
   * time that depends only on their lengths (through a proxy that pools connections,
   * the last header may be another client's).
   */
  identify(authorization: string | undefined, connection?: object): Identity {
    const header = authorization ?? "";
    let last = connection && this.lastOf.get(connection);
    if (last === undefined || !sameText(last.header, header)) {
      const bearer = /^bearer(?: (.*))?$/is.exec(header);
      const token = bearer?.[1]?.trim();
      last = { header, digest: bearer === null ? undefined : token ? digest(token) : "" };
      if (connection !== undefined) this.lastOf.set(connection, last);
    }
    return last.digest === undefined ? NO_KEY : (this.accounts.get(last.digest) ?? UNKNOWN_KEY);
  }

  /**
   * Where a request stands, counted against its key or address when `count`: its
   * X-RateLimit headers, and its 429 when it is over the limit.
   */
  limit(identity: Identity, address: string | undefined, nowMs: number, count: boolean) {
    if (typeof identity !== "object") {
      const bucket = this.addressBucket(address ?? "", nowMs);
      return outcome(takeRequest(bucket, PLAN_LIMITS.free, nowMs, this.ban, count));
    }
    if (identity.limits === null) {
      // Reset at the end of the minute.
      const resetMs = (Math.floor(nowMs / MINUTE_MS) + 1) * MINUTE_MS;
      return outcome(decision("allowed", UNLIMITED, UNLIMITED, resetMs, nowMs));
    }
    return outcome(takeRequest(identity.bucket, identity.limits, nowMs, this.ban, count));
  }

  /**
   * The headers and 429 of a scripted 429 (POST /__admin/next): it counts toward a
   * ban as a real one does, its Retry-After being the limited period it starts.
   */
  scripted429(account: Account, nowMs: number, retryAfterSeconds: number) {
    const limit = account.limits?.perMinute ?? UNLIMITED;
    const resetMs = nowMs + retryAfterSeconds * 1000;
    reject(account.bucket, resetMs, nowMs, this.ban);
    return outcome(decision("rate_limited", limit, 0, resetMs, nowMs));
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
}

export function unauthorizedReply(identity: typeof NO_KEY | typeof UNKNOWN_KEY): Reply {
  return identity === NO_KEY
    ? errorReply("unauthorized", "an API key is required: send Authorization: Bearer <key>", [
        "WWW-Authenticate",
        'Bearer realm="petstore"',
      ])
    : errorReply("invalid_key", "the API key is not valid", [
        "WWW-Authenticate",
        'Bearer realm="petstore", error="invalid_token"',
      ]);
}
