/**
 * What one response says about the rate limit, from its headers alone. Pure: the
 * retry wrapper decides what to do with it. A malformed header is ignored (the
 * wrapper then falls back to the next source, finally to backoff) rather than
 * trusted or turned into an error.
 */
import { MAX_DATE_MS, parseHttpDate } from "./http-date.js";
import type { RateLimitInfo } from "../http-response.js";

export interface RateLimitHeaders {
  limit?: number;
  remaining?: number;
  /** Unix time in milliseconds (X-RateLimit-Reset is in seconds). */
  resetAt?: number;
  /** From Retry-After (seconds or an HTTP date), relative to `nowMs`; never negative. */
  retryAfterMs?: number;
}

const WHOLE_NUMBER = /^[0-9]{1,15}$/;

function wholeNumber(value: string | undefined): number | undefined {
  const trimmed = value?.trim();
  return trimmed !== undefined && WHOLE_NUMBER.test(trimmed) ? Number(trimmed) : undefined;
}

/**
 * Retry-After is either delay-seconds or an HTTP date (RFC 9110, section 10.2.3).
 * A wait longer than any Date spans is held at that span: it is as good as forever.
 */
function retryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  const seconds = wholeNumber(value);
  if (seconds !== undefined) return Math.min(seconds * 1000, MAX_DATE_MS);
  const at = parseHttpDate(value);
  return at === undefined ? undefined : Math.min(MAX_DATE_MS, Math.max(0, at - nowMs));
}

/** Header names must be lower-case, as node:http delivers them. */
export function rateLimitFromHeaders(
  headers: Record<string, string>,
  nowMs: number,
): RateLimitHeaders {
  const result: RateLimitHeaders = {};
  const limit = wholeNumber(headers["x-ratelimit-limit"]);
  if (limit !== undefined) result.limit = limit;
  const remaining = wholeNumber(headers["x-ratelimit-remaining"]);
  if (remaining !== undefined) result.remaining = remaining;
  const reset = wholeNumber(headers["x-ratelimit-reset"]);
  // Fifteen digits of seconds reach past any Date: such a reset is held at the last one.
  if (reset !== undefined) result.resetAt = Math.min(reset * 1000, MAX_DATE_MS);
  const retryAfter = retryAfterMs(headers["retry-after"], nowMs);
  if (retryAfter !== undefined) result.retryAfterMs = retryAfter;
  return result;
}

/** The three X-RateLimit-* values, when the response carried all of them. */
export function completeRateLimit(headers: RateLimitHeaders): RateLimitInfo | undefined {
  const { limit, remaining, resetAt } = headers;
  if (limit === undefined || remaining === undefined || resetAt === undefined) return undefined;
  return { limit, remaining, resetAt };
}
