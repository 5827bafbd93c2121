/**
 * The keys the fake accepts, each with its plan's rate-limit windows, and the
 * windows of client addresses that send no valid key (limited at the free plan's
 * limits). Keys are held by their SHA-256 digest, and a presented key is hashed
 * before the lookup: the Map compares digests, so the time a lookup takes says
 * nothing about how close a guess was to a real key.
 */
import { hash } from "node:crypto";
import { PLAN_LIMITS, type ApiKeySpec } from "./keys.js";
import {
  DAY_MS,
  outcome,
  RateBucket,
  scriptedRejection,
  takeRequest,
  unlimited,
  type BanPolicy,
  type LimitOutcome,
  type RateDecision,
} from "./rate-limit.js";
import { errorReply, type Reply } from "./reply.js";

export interface Account extends ApiKeySpec {
  bucket: RateBucket;
}

/** No bearer credentials (or another scheme, RFC 6750 §3.1: no error code then). */
export const NO_KEY = "no_key";
/** Bearer credentials that match no key. */
export const UNKNOWN_KEY = "unknown_key";

export type Identity = Account | typeof NO_KEY | typeof UNKNOWN_KEY;

const digest = (key: string) => hash("sha256", key, "base64");

export class Keyring {
  /** By digest, in the order the keys were given, then added. */
  private readonly accounts = new Map<string, Account>();
  /** Windows of clients without a valid key; stale ones are dropped as it grows. */
  private addresses = new Map<string, RateBucket>();
  private sweepAt = 4096;

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

  /** From the Authorization header; the scheme name is case-insensitive (RFC 7235). */
  identify(authorization: string | undefined): Identity {
    if (authorization === undefined) return NO_KEY;
    const space = authorization.indexOf(" ");
    if (space !== 6 || authorization.slice(0, 6).toLowerCase() !== "bearer") {
      return authorization.toLowerCase() === "bearer" ? UNKNOWN_KEY : NO_KEY;
    }
    const token = authorization.slice(7).trim();
    if (token === "") return UNKNOWN_KEY;
    return this.accounts.get(digest(token)) ?? UNKNOWN_KEY;
  }

  /** Where a request stands: counted against its key or address when `count`. */
  decide(
    identity: Identity,
    address: string | undefined,
    nowMs: number,
    count: boolean,
  ): RateDecision {
    if (typeof identity !== "object") {
      const bucket = this.addressBucket(address ?? "", nowMs);
      return takeRequest(bucket, PLAN_LIMITS.free, nowMs, this.ban, count);
    }
    if (identity.limits === null) return unlimited(nowMs);
    return takeRequest(identity.bucket, identity.limits, nowMs, this.ban, count);
  }

  /** The X-RateLimit headers of a request, and its 429 when it is over the limit. */
  limit(
    identity: Identity,
    address: string | undefined,
    nowMs: number,
    count: boolean,
  ): LimitOutcome {
    return outcome(this.decide(identity, address, nowMs, count));
  }

  /** The headers and 429 of a scripted 429 (POST /__admin/next), counted toward a ban. */
  scripted429(account: Account, nowMs: number, retryAfterSeconds: number): LimitOutcome {
    const limit = account.limits?.perMinute ?? unlimited(nowMs).limit;
    return outcome(scriptedRejection(account.bucket, limit, nowMs, retryAfterSeconds, this.ban));
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
