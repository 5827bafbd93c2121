import { describe, expect, it } from "vitest";
import { completeRateLimit, rateLimitFromHeaders } from "../../src/client/rate-limit-headers.js";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

describe("rateLimitFromHeaders", () => {
  it.each<[string, Record<string, string>, ReturnType<typeof rateLimitFromHeaders>]>([
    ["no headers", {}, {}],
    [
      "the three X-RateLimit headers, reset in seconds becoming milliseconds",
      {
        "x-ratelimit-limit": "60",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": "1795348860",
      },
      { limit: 60, remaining: 0, resetAt: 1795348860_000 },
    ],
    ["Retry-After in seconds", { "retry-after": "12" }, { retryAfterMs: 12_000 }],
    ["Retry-After with spaces", { "retry-after": " 3 " }, { retryAfterMs: 3_000 }],
    ["Retry-After 0", { "retry-after": "0" }, { retryAfterMs: 0 }],
    [
      "Retry-After as an HTTP date, relative to now",
      { "retry-after": "Sun, 22 Nov 2026 12:00:45 GMT" },
      { retryAfterMs: 45_000 },
    ],
    [
      "Retry-After as an HTTP date in the past is no wait, not a negative one",
      { "retry-after": "Sun, 22 Nov 2026 11:59:00 GMT" },
      { retryAfterMs: 0 },
    ],
    [
      "Retry-After in the obsolete RFC 850 date form",
      { "retry-after": "Sunday, 22-Nov-26 12:00:10 GMT" },
      { retryAfterMs: 10_000 },
    ],
    ["negative Retry-After is ignored", { "retry-after": "-5" }, {}],
    ["fractional Retry-After is ignored", { "retry-after": "1.5" }, {}],
    ["an ISO date is not an HTTP date", { "retry-after": "2026-11-22T12:01:00Z" }, {}],
    ["garbage Retry-After is ignored", { "retry-after": "soon" }, {}],
    [
      "malformed rate-limit values are ignored one by one",
      { "x-ratelimit-limit": "sixty", "x-ratelimit-remaining": "-1", "x-ratelimit-reset": "12" },
      { resetAt: 12_000 },
    ],
  ])("%s", (_name, headers, expected) => {
    expect(rateLimitFromHeaders(headers, NOW)).toEqual(expected);
  });
});

describe("completeRateLimit", () => {
  it("gives the rate limit only when all three headers were there", () => {
    expect(completeRateLimit({ limit: 60, remaining: 3, resetAt: 5000 })).toEqual({
      limit: 60,
      remaining: 3,
      resetAt: 5000,
    });
    expect(completeRateLimit({ limit: 60, remaining: 3 })).toBeUndefined();
    expect(completeRateLimit({ retryAfterMs: 1000 })).toBeUndefined();
  });
});
