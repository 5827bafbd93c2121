/**
 * What the retry wrapper says when it gives up on the rate limit (exit 5): which
 * window binds (minute, day, a ban), when to try again in human units, and the
 * `--max-retries` hint only when more attempts could have helped.
 */
import { EXIT, RateLimitError } from "../errors.js";
import { rateLimitFromHeaders } from "./rate-limit-headers.js";
import type { RateLimitInfo } from "../http-response.js";
import type { HttpRequest } from "./types.js";
import { type RateWindow, waitUntil, windowOf } from "./wait-text.js";

const BAN_WARNING = "a key that keeps sending while limited may be banned for a while";
export const MORE_ATTEMPTS_HINT = `\`--max-retries\` allows more attempts; ${BAN_WARNING}`;

/** "the per-minute limit of 60 requests", "the daily limit", "the rate limit of 500 requests". */
function limitName(window: RateWindow | undefined, limit: number | undefined): string {
  const name =
    window === "minute" ? "per-minute limit" : window === "day" ? "daily limit" : "rate limit";
  if (limit === undefined) return `the ${name}`;
  return `the ${name} of ${limit} request${limit === 1 ? "" : "s"}`;
}

/**
 * The moment trying again makes sense. X-RateLimit-Reset names it to the second;
 * Retry-After counts whole seconds from when the answer left, so it names the
 * same moment up to a second later: then the reset is the clearer of the two.
 */
function retryMoment(
  headers: Record<string, string>,
  nowMs: number,
  waitMs: number,
): { at: number; limit: number | undefined } {
  const { resetAt, retryAfterMs, limit } = rateLimitFromHeaders(headers, nowMs);
  const reset = resetAt !== undefined && resetAt > nowMs ? resetAt : undefined;
  const after = retryAfterMs === undefined ? undefined : nowMs + retryAfterMs;
  let at = reset ?? nowMs + waitMs;
  if (after !== undefined && !(reset !== undefined && Math.abs(after - reset) < 1000)) at = after;
  return { at, limit };
}

export interface GiveUp {
  /** Attempts made. */
  attempts: number;
  /** The wait the wrapper would have needed before the next attempt. */
  waitMs: number;
  nowMs: number;
  /**
   * Whether more attempts could have helped: retries were on, the attempts ran
   * out, and the next wait would have fitted the total-wait budget. Not when
   * retries were off (--no-retry, --max-retries 0) or the wait is past the budget.
   */
  moreAttemptsHelp: boolean;
}

/** Giving up on a 429: which window binds, and when to try again. */
export function stillRateLimited(error: RateLimitError, giveUp: GiveUp): RateLimitError {
  const { attempts, nowMs } = giveUp;
  const after = `(after ${attempts} attempt${attempts === 1 ? "" : "s"})`;
  const moment = retryMoment(error.response?.headers ?? {}, nowMs, giveUp.waitMs);
  const code = error.body?.code;
  const window = windowOf(moment.at, nowMs);
  let what = error.message;
  let hint: string | undefined = giveUp.moreAttemptsHelp ? MORE_ATTEMPTS_HINT : BAN_WARNING;
  if (code === "banned") {
    what = "rate limited (429): the key is banned for sending while rate limited";
    hint = undefined;
  } else if (window !== undefined && (code === undefined || code === "rate_limited")) {
    what = `rate limited (429): ${limitName(window, moment.limit)} is used up`;
  }
  const { status, request, body, response } = error;
  const message = `${what} ${after}; try again in ${waitUntil(moment.at, nowMs)}`;
  return new RateLimitError(message, EXIT.RATE_LIMITED, status, request, body, hint, response);
}

/** Remaining was 0 and the reset is further away than the wrapper may wait (or retries are off). */
export function limitUsedUp(
  request: HttpRequest,
  rateLimit: RateLimitInfo,
  nowMs: number,
): RateLimitError {
  const window = windowOf(rateLimit.resetAt, nowMs);
  const used =
    window === undefined
      ? `the rate limit is used up (0 of ${rateLimit.limit} requests left)`
      : `${limitName(window, rateLimit.limit)} is used up`;
  const message = `${used}; the request was not sent; try again in ${waitUntil(rateLimit.resetAt, nowMs)}`;
  const summary = { method: request.method, url: request.path };
  return new RateLimitError(message, EXIT.RATE_LIMITED, 429, summary, undefined);
}
