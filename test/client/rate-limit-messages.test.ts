/**
 * What the retry wrapper says when it gives up on the rate limit (exit 5): the
 * window that binds, the wait in human units, and the `--max-retries` hint only
 * when more attempts could have helped.
 */
import { describe, expect, it } from "vitest";
import { completeRateLimit, rateLimitFromHeaders } from "../../src/client/headers.js";
import { MORE_ATTEMPTS_HINT } from "../../src/client/response-errors.js";
import { errorFromResponse } from "../../src/client/response-errors.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetry } from "../../src/client/retry.js";
import type { HttpRequest } from "../../src/client/types.js";
import type { HttpResponse } from "../../src/http-response.js";
import { RateLimitError } from "../../src/errors.js";

/** 11:28 UTC: the day window resets in 12 h 32 min, at midnight. */
const MIDNIGHT = Date.UTC(2030, 10, 6);
const T0 = MIDNIGHT - 45_120_000;
const GET: HttpRequest = { method: "GET", path: "/pets?limit=20" };
const BAN_WARNING = "a key that keeps sending while limited may be banned for a while";

function answer(status: number, headers: Record<string, string>, code = "rate_limited") {
  const response: HttpResponse = {
    status,
    headers,
    body:
      status === 200 ? "[]" : JSON.stringify({ code, message: "limited, retry after 9 s", status }),
    rateLimit: completeRateLimit(rateLimitFromHeaders(headers, T0)),
    durationMs: 1,
  };
  return response;
}

function limited(limit: number, resetAt: number, retryAfterS: number, code = "rate_limited") {
  return answer(
    429,
    {
      "x-ratelimit-limit": String(limit),
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": String(resetAt / 1000),
      "retry-after": String(retryAfterS),
    },
    code,
  );
}

async function failure(outcomes: HttpResponse[], policy: Partial<RetryPolicy> = {}, calls = 1) {
  let now = T0;
  const sleeps: number[] = [];
  const retrying = withRetry(
    async (request) => {
      const outcome = outcomes.shift();
      if (outcome === undefined) throw new Error("more requests than the test expected");
      const error =
        outcome.status >= 300
          ? errorFromResponse({ method: request.method, url: request.path }, outcome)
          : undefined;
      return { kind: "answered" as const, response: outcome, error };
    },
    { ...DEFAULT_RETRY_POLICY, ...policy },
    {
      now: () => now,
      sleep: async (ms) => {
        sleeps.push(ms);
        now += ms;
      },
      random: () => 0.5,
    },
  );
  let error: unknown;
  for (let call = 0; call < calls; call++) error = await retrying(GET).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RateLimitError);
  expect((error as RateLimitError).exitCode).toBe(5);
  return { error: error as RateLimitError, sleeps };
}

describe("giving up on the rate limit", () => {
  it("says the daily limit binds and when it resets, in hours and minutes, without the retries hint", async () => {
    const { error, sleeps } = await failure([limited(1000, MIDNIGHT, 45_120)]);
    expect(error.message).toBe(
      "rate limited (429): the daily limit of 1000 requests is used up (after 1 attempt); try again in 12 h 32 min (at 00:00 UTC)",
    );
    expect(error.hint).toBe(BAN_WARNING);
    expect(sleeps).toEqual([]);
  });

  it("says the per-minute limit binds and gives the --max-retries hint when the attempts ran out", async () => {
    const minute = Math.ceil(T0 / 60_000) * 60_000 + 60_000;
    const outcomes = [1, 2, 3].map(() => limited(60, minute, 5));
    const { error, sleeps } = await failure(outcomes, { limit: 2 });
    expect(sleeps).toHaveLength(2);
    expect(error.message).toMatch(
      /^rate limited \(429\): the per-minute limit of 60 requests is used up \(after 3 attempts\); try again in \d+ s$/,
    );
    expect(error.hint).toBe(MORE_ATTEMPTS_HINT);
    expect(error.hint).toContain("`--max-retries` allows more attempts");
  });

  it("gives no --max-retries hint when retries were turned off (--no-retry)", async () => {
    const minute = T0 + 30_000;
    const { error } = await failure([limited(60, minute, 30)], { limit: 0 });
    expect(error.message).toBe(
      "rate limited (429): the per-minute limit of 60 requests is used up (after 1 attempt); try again in 30 s",
    );
    expect(error.hint).toBe(BAN_WARNING);
  });

  it("gives no --max-retries hint when the next wait would pass the total-wait budget", async () => {
    const outcomes = [limited(60, T0 + 40_000, 40), limited(60, T0 + 80_000, 40)];
    const { error, sleeps } = await failure(outcomes);
    expect(sleeps).toEqual([40_250]);
    expect(error.message).toMatch(/\(after 2 attempts\); try again in 40 s$/);
    expect(error.hint).toBe(BAN_WARNING);
  });

  it("says the key is banned, with the ban's end and no hint to send more", async () => {
    const until = T0 + 600_000;
    const { error } = await failure([limited(300, until, 600, "banned")]);
    expect(error.message).toBe(
      "rate limited (429): the key is banned for sending while rate limited (after 1 attempt); try again in 10 min (at 11:38 UTC)",
    );
    expect(error.hint).toBeUndefined();
  });

  it("counts one request as one request", async () => {
    const { error } = await failure([limited(1, T0 + 30_000, 30)], { limit: 0 });
    expect(error.message).toMatch(
      /^rate limited \(429\): the per-minute limit of 1 request is used up/,
    );
  });

  it("keeps the service's words when the window is not one it can name", async () => {
    const { error } = await failure([limited(500, T0 + 600_000, 600)]);
    expect(error.message).toBe(
      "rate limited: 429 Too Many Requests: limited, retry after 9 s (after 1 attempt); try again in 10 min (at 11:38 UTC)",
    );
  });

  it("refuses to send when Remaining 0 says the daily limit is used up, naming the reset", async () => {
    const spent = answer(200, {
      "x-ratelimit-limit": "1000",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": String(MIDNIGHT / 1000),
    });
    const { error } = await failure([spent], {}, 2);
    expect(error.message).toBe(
      "the daily limit of 1000 requests is used up; the request was not sent; try again in 12 h 32 min (at 00:00 UTC)",
    );
  });
});
