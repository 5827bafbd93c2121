/**
 * Bearer-key lookup. Keys are held by their SHA-256 digest, and a presented key is
 * hashed before the lookup: the Map compares digests, so the time a lookup takes
 * says nothing about how close a guess was to a real key, and the keys
 * themselves are not kept in memory tables.
 */
import { hash } from "node:crypto";
import type { ApiKeySpec, PlanName } from "./keys.js";
import { RateBucket, type RateAccount } from "./rate-limit.js";
import { errorReply, type Reply } from "./reply.js";

export interface KeyAccount extends RateAccount {
  plan: PlanName;
}

/** No bearer credentials (or another scheme, RFC 6750 §3.1: no error code then). */
export const NO_KEY = "no_key";
/** Bearer credentials that match no key. */
export const UNKNOWN_KEY = "unknown_key";

export type Identity = KeyAccount | typeof NO_KEY | typeof UNKNOWN_KEY;

function digest(key: string): string {
  return hash("sha256", key, "base64");
}

export class Keyring {
  private readonly accounts = new Map<string, KeyAccount>();

  constructor(keys: readonly ApiKeySpec[]) {
    for (const spec of keys) this.add(spec);
  }

  /** Adds a key, or changes the plan of a known one (its counters are kept); true when new. */
  add({ key, plan, limits }: ApiKeySpec): boolean {
    const known = this.accounts.get(digest(key));
    if (known !== undefined) {
      known.plan = plan;
      known.limits = limits;
      return false;
    }
    this.accounts.set(digest(key), { plan, limits, bucket: new RateBucket() });
    return true;
  }

  /** Whether the key was there. */
  remove(key: string): boolean {
    return this.accounts.delete(digest(key));
  }

  account(key: string): KeyAccount | undefined {
    return this.accounts.get(digest(key));
  }

  /** Every key's rate-limit windows and bans start over. */
  resetBuckets(): void {
    for (const account of this.accounts.values()) account.bucket = new RateBucket();
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
