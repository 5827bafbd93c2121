/**
 * Rate limiting as the request pipeline uses it: per key (by its plan's
 * limits), per client address for requests without a valid key, constant
 * headers for unlimited keys; the headers every answer carries, and the 429 to
 * send when a request is over its limit.
 */
import type { Identity } from "./auth.js";
import { PLAN_LIMITS } from "./keys.js";
import { AddressBuckets, peekRequest, takeRequest, type BanPolicy } from "./rate-limit.js";
import { rateHeaders, rateLimitedReply, type Reply } from "./reply.js";

/** What an unlimited key is told: a limit that never runs out. */
export const UNLIMITED = 2147483647;

export interface LimitOutcome {
  /** The X-RateLimit headers, as a flat list. */
  headers: readonly string[];
  /** The 429 to answer instead, when the request is over its limit. */
  refusal?: Reply;
}

export class RequestLimiter {
  private addresses = new AddressBuckets();
  // Unlimited keys get the same headers for a whole minute: no work per request.
  private unlimitedHeaders: string[] = [];
  private unlimitedUntilMs = -Infinity;

  constructor(private readonly ban: BanPolicy) {}

  /**
   * `count`: whether the request uses up quota (one that could not even be
   * read does not: its answer only shows where the client stands).
   */
  check(
    identity: Identity,
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
        : [this.addresses.get(address ?? "", nowMs), PLAN_LIMITS.free];
    const decision = count
      ? takeRequest(bucket, limits, nowMs, this.ban)
      : peekRequest(bucket, limits, nowMs);
    return {
      headers: rateHeaders(decision),
      refusal: decision.verdict === "allowed" ? undefined : rateLimitedReply(decision),
    };
  }

  /** The windows and bans of clients without a valid key start over. */
  clearAddresses(): void {
    this.addresses = new AddressBuckets();
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
