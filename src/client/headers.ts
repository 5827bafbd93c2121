/**
 * What an answer's headers say, from the headers alone. Pure: the retry wrapper,
 * the bulk add and `get` decide what to do with it. A malformed header is
 * ignored (the retry wrapper then falls back to the next source, finally to
 * backoff) rather than trusted or turned into an error.
 *
 * - the rate limit: `X-RateLimit-Limit`, `-Remaining`, `-Reset` and `Retry-After`;
 * - the deprecation notice that the warning of `get` shows: `Sunset` (RFC 8594)
 *   and `Link: <...>; rel="successor-version"` (RFC 5829). The spec marks
 *   GET /pets/{petId} deprecated with removal on 5 December 2030, so that date
 *   stands in when the service sends no (readable) Sunset. `Deprecation` (RFC
 *   9745, when it was deprecated) is not read: nothing shows it;
 * - the id of a pet the service says it created, from its `Location`
 *   (`/v1/pets/42`, relative or absolute, as RFC 9110 allows), for an answer
 *   whose body cannot be read as a pet.
 */
import type { RateLimitInfo } from "../http-response.js";
import { SUNSET_DATE } from "../schema/deprecation.js";
import { INT64_MAX } from "../schema/pet.js";
import type { Deprecation } from "./types.js";

/**
 * An HTTP date (RFC 9110, section 5.6.7) as Unix milliseconds. Every form of it
 * starts with a day name; checking that first keeps Date.parse from reading "12"
 * or "2030" as a date.
 */
export function parseHttpDate(value: string | undefined): number | undefined {
  if (value === undefined || !/^[A-Za-z]{3}/.test(value.trim())) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : at;
}

/**
 * The furthest moment from 1970, either way, that a Date can hold (ECMA-262,
 * 21.4.1.22): a moment a header names beyond it is held at it, so every later
 * `new Date(...)` of it is a valid date.
 */
export const MAX_DATE_MS = 8.64e15;

/** `ms` within what a Date can hold (NaN, which no header value gives, as 0). */
export function withinDates(ms: number): number {
  if (Number.isNaN(ms)) return 0;
  return Math.min(MAX_DATE_MS, Math.max(-MAX_DATE_MS, ms));
}

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

function httpDate(value: string | undefined): Date | undefined {
  const at = parseHttpDate(value);
  return at === undefined ? undefined : new Date(at);
}

/** The target of the first link whose rel includes successor-version, made absolute. */
export function successorFromLink(
  link: string | undefined,
  requestUrl: string,
): string | undefined {
  if (link === undefined) return undefined;
  for (const [, target, params] of link.matchAll(/<([^>]*)>([^,]*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;]+))/i.exec(params ?? "");
    const relations = (rel?.[1] ?? rel?.[2] ?? "").toLowerCase().split(/\s+/);
    if (!relations.includes("successor-version")) continue;
    return URL.canParse(target ?? "", requestUrl)
      ? new URL(target ?? "", requestUrl).href
      : undefined;
  }
  return undefined;
}

/** Header names lower-cased. */
export function deprecationFromHeaders(
  headers: Record<string, string>,
  requestUrl: string,
): Deprecation {
  const deprecation: Deprecation = {
    sunset: httpDate(headers.sunset) ?? new Date(SUNSET_DATE),
  };
  const replacement = successorFromLink(headers.link, requestUrl);
  if (replacement !== undefined) deprecation.replacement = replacement;
  return deprecation;
}

const PET_PATH = /\/pets\/(0|[1-9][0-9]{0,18})\/?$/;

/** The pet id at the end of a Location's path, when it names one within int64. */
export function idFromLocation(location: string | undefined): bigint | undefined {
  if (location === undefined) return undefined;
  const base = "http://service.invalid";
  if (!URL.canParse(location.trim(), base)) return undefined;
  const digits = PET_PATH.exec(new URL(location.trim(), base).pathname)?.[1];
  if (digits === undefined) return undefined;
  const id = BigInt(digits);
  return id <= INT64_MAX ? id : undefined;
}
