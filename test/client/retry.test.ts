import { describe, expect, it } from "vitest";
import { completeRateLimit, rateLimitFromHeaders } from "../../src/client/headers.js";
import { errorFromResponse } from "../../src/client/response-errors.js";
import {
  computeDelay,
  DEFAULT_RETRY_POLICY,
  type DelayInput,
  exhaustedWaitMs,
  RESET_MARGIN_MS,
  retryReason,
  type RetryPolicy,
  withRetry,
} from "../../src/client/retry.js";
import type { SendOutcome } from "../../src/client/send.js";
import type { HttpRequest, RetryEvent } from "../../src/client/types.js";
import type { HttpResponse } from "../../src/http-response.js";
import {
  HttpError,
  NetworkError,
  OutcomeUnknownError,
  PetstoreError,
  RateLimitError,
  TimeoutError,
  TlsError,
} from "../../src/errors.js";

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const seconds = (s: number) => String(Math.floor(T0 / 1000) + s);
const GET: HttpRequest = { method: "GET", path: "/pets?limit=20" };
const POST: HttpRequest = { method: "POST", path: "/pets", body: '{"name":"Rex","categoryId":1}' };

function fakeClock() {
  let now = T0;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    advance: (ms: number) => {
      now += ms;
    },
    sleeps,
  };
}

function answer(status: number, headers: Record<string, string> = {}): HttpResponse {
  return {
    status,
    headers,
    body: status === 200 ? "[]" : `{"code":"x","message":"status ${status}","status":${status}}`,
    rateLimit: completeRateLimit(rateLimitFromHeaders(headers, T0)),
    durationMs: 1,
  };
}

type Outcome = HttpResponse | NetworkError | OutcomeUnknownError;

/** What `send` says of an answer, or of a failure (a NetworkError says whether it was sent). */
function outcomeOf(outcome: Outcome, request: HttpRequest): SendOutcome {
  if (outcome instanceof NetworkError && !outcome.sent) return { kind: "not-sent", error: outcome };
  if (outcome instanceof PetstoreError) return { kind: "unknown", error: outcome };
  const error =
    outcome.status >= 300
      ? errorFromResponse({ method: request.method, url: request.path }, outcome)
      : undefined;
  return { kind: "answered", response: outcome, error };
}

/** A send that plays `outcomes` in order, turning non-2xx answers into the typed errors. */
function scriptedSend(clock: ReturnType<typeof fakeClock>, outcomes: Outcome[]) {
  const sentAt: number[] = [];
  const send = async (request: HttpRequest) => {
    sentAt.push(clock.now());
    const outcome = outcomes.shift();
    if (outcome === undefined) throw new Error("more requests than the test expected");
    return outcomeOf(outcome, request);
  };
  return { send, sentAt };
}

function setup(outcomes: Outcome[], policy: Partial<RetryPolicy> = {}, random = () => 0.5) {
  const clock = fakeClock();
  const { send, sentAt } = scriptedSend(clock, outcomes);
  const events: RetryEvent[] = [];
  const retrying = withRetry(
    send,
    { ...DEFAULT_RETRY_POLICY, ...policy },
    { sleep: clock.sleep, now: clock.now, random, onRetry: (e) => events.push(e) },
  );
  return { retrying, clock, sentAt, events };
}

const summary = { method: "GET", url: "/pets" };

describe("computeDelay", () => {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, backoffBase: 1000, backoffLimit: 16_000 };
  it.each<[string, DelayInput, number, number]>([
    [
      "Retry-After is authoritative, plus the margin",
      { retry: 1, status: 429, headers: { retryAfterMs: 12_000, resetAt: T0 + 50_000 } },
      0.9,
      12_000 + RESET_MARGIN_MS,
    ],
    [
      "Retry-After on a status that is not in unprocessedStatusCodes is not obeyed: the backoff is",
      { retry: 1, status: 502, headers: { retryAfterMs: 12_000 } },
      0.5,
      750,
    ],
    [
      "a 429 without Retry-After waits until X-RateLimit-Reset",
      { retry: 1, status: 429, headers: { remaining: 0, resetAt: T0 + 30_000 } },
      0.5,
      30_000 + RESET_MARGIN_MS,
    ],
    [
      "a 429 without any header backs off: first ceiling is the base delay",
      { retry: 1, status: 429, headers: {} },
      0.5,
      750,
    ],
    [
      "the backoff ceiling doubles with each retry",
      { retry: 3, status: undefined, headers: {} },
      0.5,
      3000,
    ],
    [
      "the backoff ceiling is capped by backoffLimit",
      { retry: 10, status: undefined, headers: {} },
      0.999,
      15_992,
    ],
    [
      "equal jitter waits half the ceiling at least",
      { retry: 2, status: undefined, headers: {} },
      0,
      1000,
    ],
    [
      "a 503 saying Remaining 0 still waits for the reset",
      { retry: 1, status: 503, headers: { remaining: 0, resetAt: T0 + 5_000 } },
      0.5,
      5_000 + RESET_MARGIN_MS,
    ],
    [
      "a 503 with requests left backs off, ignoring the reset",
      { retry: 1, status: 503, headers: { remaining: 3, resetAt: T0 + 5_000 } },
      0.5,
      750,
    ],
    [
      "a reset already past falls back to backoff",
      { retry: 2, status: 429, headers: { remaining: 0, resetAt: T0 - 1_000 } },
      0.25,
      1_250,
    ],
    [
      "a backoff longer than the time to the reset is kept",
      { retry: 5, status: 429, headers: { resetAt: T0 + 100 } },
      0.5,
      12_000,
    ],
  ])("%s", (_name, input, random, expected) => {
    expect(computeDelay(input, policy, T0, () => random)).toBe(expected);
  });
});

describe("exhaustedWaitMs", () => {
  it.each([
    ["nothing seen yet", undefined, 0],
    ["requests left", { limit: 60, remaining: 1, resetAt: T0 + 10_000 }, 0],
    ["used up, reset ahead", { limit: 60, remaining: 0, resetAt: T0 + 10_000 }, 10_250],
    ["used up, reset passed", { limit: 60, remaining: 0, resetAt: T0 }, 0],
  ])("%s", (_name, rateLimit, expected) => {
    expect(exhaustedWaitMs(rateLimit, T0)).toBe(expected);
  });
});

describe("retryReason", () => {
  const http = (status: number) => answer(status);
  it.each<[string, Outcome, "GET" | "POST", RetryEvent["reason"] | undefined]>([
    ["GET 429", http(429), "GET", "rate_limited"],
    ["POST 429: refused, certainly not processed", http(429), "POST", "rate_limited"],
    ["GET 502", http(502), "GET", "server_error"],
    ["GET 503", http(503), "GET", "server_error"],
    ["GET 504", http(504), "GET", "server_error"],
    ["POST 503: refused, certainly not processed", http(503), "POST", "server_error"],
    ["POST 502: it may have been processed", http(502), "POST", undefined],
    ["GET 500 is not retried", http(500), "GET", undefined],
    ["GET 404 is not retried", http(404), "GET", undefined],
    ["GET 401 is not retried", http(401), "GET", undefined],
    ["GET 200 is not a failure", http(200), "GET", undefined],
    ["GET timeout", new TimeoutError("t", summary, true), "GET", "timeout"],
    ["GET connection reset", new NetworkError("r", summary, true), "GET", "network"],
    ["POST refused connection", new NetworkError("r", summary, false), "POST", "network"],
    ["POST timeout while connecting", new TimeoutError("t", summary, false), "POST", "timeout"],
    ["POST reset after sending", new NetworkError("r", summary, true), "POST", undefined],
    ["POST timeout after sending", new TimeoutError("t", summary, true), "POST", undefined],
    ["POST outcome unknown", new OutcomeUnknownError("u", summary), "POST", undefined],
    [
      "GET untrusted certificate: the same every time",
      new TlsError("c", summary, false),
      "GET",
      undefined,
    ],
    ["POST untrusted certificate", new TlsError("c", summary, false), "POST", undefined],
  ])("%s", (_name, outcome, method, expected) => {
    const request = method === "GET" ? GET : POST;
    expect(retryReason(outcomeOf(outcome, request), method, DEFAULT_RETRY_POLICY)).toBe(expected);
  });

  it("follows the table: a method or status added to it is retried", () => {
    const policy: RetryPolicy = {
      ...DEFAULT_RETRY_POLICY,
      methods: ["GET", "POST"],
      statusCodes: [500],
    };
    const reset = new NetworkError("r", summary, true);
    expect(retryReason(outcomeOf(reset, POST), "POST", policy)).toBe("network");
    expect(retryReason(outcomeOf(answer(500), POST), "POST", policy)).toBe("server_error");
    expect(retryReason(outcomeOf(answer(502), GET), "GET", policy)).toBeUndefined();
  });
});

describe("withRetry", () => {
  it("never sends again before Retry-After has passed", async () => {
    const { retrying, clock, sentAt, events } = setup([
      answer(429, { "retry-after": "12" }),
      answer(200),
    ]);
    const response = await retrying(GET);
    expect(response.status).toBe(200);
    expect(clock.sleeps).toEqual([12_250]);
    expect(sentAt[1]! - sentAt[0]!).toBeGreaterThanOrEqual(12_000);
    expect(events).toEqual([
      { reason: "rate_limited", waitMs: 12_250, attempt: 2, maxAttempts: 5 },
    ]);
  });

  it("waits for X-RateLimit-Reset when a 429 has no Retry-After", async () => {
    const { retrying, clock } = setup([
      answer(429, {
        "x-ratelimit-limit": "60",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": seconds(40),
      }),
      answer(200),
    ]);
    await retrying(GET);
    expect(clock.sleeps).toEqual([40_250]);
  });

  it("gives up after maxRetries retries with a RateLimitError saying when to try again", async () => {
    const limited = () => answer(429, { "retry-after": "1" });
    const { retrying, clock, sentAt } = setup([limited(), limited(), limited(), limited()], {
      limit: 3,
    });
    const error = await retrying(GET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).exitCode).toBe(5);
    expect((error as RateLimitError).message).toBe(
      "rate limited: 429 Too Many Requests: status 429 (after 4 attempts); try again in 1 s",
    );
    expect(sentAt).toHaveLength(4);
    expect(clock.sleeps).toEqual([1_250, 1_250, 1_250]);
  });

  it("fails at once, without sleeping, when Retry-After is beyond the total-wait cap", async () => {
    const { retrying, clock, sentAt, events } = setup([answer(429, { "retry-after": "600" })]);
    const error = await retrying(GET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as Error).message).toMatch(
      /\(after 1 attempt\); try again in 10 min \(at 12:10 UTC\)$/,
    );
    expect(clock.sleeps).toEqual([]);
    expect(events).toEqual([]);
    expect(sentAt).toHaveLength(1);
  });

  it("counts every wait of one request against the total-wait cap", async () => {
    const limited = () => answer(429, { "retry-after": "4" });
    const { retrying, clock, sentAt } = setup([limited(), limited(), limited()], {
      maxTotalWait: 10_000,
    });
    await expect(retrying(GET)).rejects.toBeInstanceOf(RateLimitError);
    expect(clock.sleeps).toEqual([4_250, 4_250]);
    expect(sentAt).toHaveLength(3);
  });

  it("retries a GET on 503 and returns the later success", async () => {
    const { retrying, clock, events } = setup([answer(503, { "retry-after": "1" }), answer(200)]);
    expect((await retrying(GET)).status).toBe(200);
    expect(clock.sleeps).toEqual([1_250]);
    expect(events[0]?.reason).toBe("server_error");
  });

  it("backs off with jitter on a 502 without headers", async () => {
    const { retrying, clock } = setup([answer(502), answer(502), answer(200)], {}, () => 0.75);
    await retrying(GET);
    expect(clock.sleeps).toEqual([875, 1_750]);
  });

  it("retries a GET after a timeout and announces it as such", async () => {
    const { retrying, events } = setup([new TimeoutError("slow", summary, true), answer(200)]);
    await retrying(GET);
    expect(events.map((e) => e.reason)).toEqual(["timeout"]);
  });

  /** A service that never answers: each attempt takes `takes(request)` ms, then times out. */
  function silentService(takes: (request: HttpRequest) => number) {
    const clock = fakeClock();
    const attempts: { cap: number | undefined; took: number }[] = [];
    const send = async (request: HttpRequest): Promise<SendOutcome> => {
      const took = takes(request);
      attempts.push({ cap: request.timeoutMs, took });
      clock.advance(took);
      return { kind: "unknown", error: new TimeoutError("no answer", summary, true) };
    };
    const retrying = withRetry(send, DEFAULT_RETRY_POLICY, {
      sleep: clock.sleep,
      now: clock.now,
      random: () => 0.5,
    });
    return { retrying, clock, attempts };
  }

  it("gives up a slow service's GET after 60 s in all, attempts included, as the docs say", async () => {
    // Each attempt ends at the 15 s timeout, or at the cap a retry is given.
    const { retrying, clock, attempts } = silentService((request) =>
      Math.min(15_000, request.timeoutMs ?? 15_000),
    );
    await expect(retrying(GET)).rejects.toBeInstanceOf(TimeoutError);
    expect(clock.now() - T0).toBeLessThanOrEqual(DEFAULT_RETRY_POLICY.maxTotalWait);
    // 15 s, 0.75 s, 15 s, 1.5 s, 15 s, 3 s: the fourth attempt has the 9.7 s left (in tenths).
    expect(attempts.map((attempt) => attempt.took)).toEqual([15_000, 15_000, 15_000, 9_700]);
    expect(clock.sleeps).toEqual([750, 1_500, 3_000]);
  });

  it("gives the first attempt its whole timeout, longer than the budget, and retries no more", async () => {
    const { retrying, clock, attempts } = silentService(() => 120_000);
    await expect(retrying(GET)).rejects.toBeInstanceOf(TimeoutError);
    expect(attempts).toEqual([{ cap: undefined, took: 120_000 }]);
    expect(clock.sleeps).toEqual([]);
  });

  it("returns the last error of a GET when the retries run out on a server error", async () => {
    const { retrying, sentAt } = setup([answer(503), answer(503)], { limit: 1 });
    const error = await retrying(GET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(503);
    expect((error as HttpError).exitCode).toBe(6);
    expect(sentAt).toHaveLength(2);
  });

  it("does not repeat a POST whose outcome is unknown", async () => {
    const unknown = new OutcomeUnknownError("reset after sending", summary);
    const { retrying, sentAt, clock } = setup([unknown]);
    await expect(retrying(POST)).rejects.toBe(unknown);
    expect(sentAt).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it("does not repeat a POST after a connection reset", async () => {
    const reset = new NetworkError("reset", summary, true);
    const { retrying, sentAt } = setup([reset]);
    await expect(retrying(POST)).rejects.toBe(reset);
    expect(sentAt).toHaveLength(1);
  });

  it("repeats a POST whose connection was refused, and one answered 429", async () => {
    const { retrying, sentAt } = setup([
      new NetworkError("refused", summary, false),
      answer(429, { "retry-after": "2" }),
      answer(200),
    ]);
    expect((await retrying(POST)).status).toBe(200);
    expect(sentAt).toHaveLength(3);
  });

  it("does not retry a GET answered 500", async () => {
    const { retrying, sentAt } = setup([answer(500)]);
    await expect(retrying(GET)).rejects.toBeInstanceOf(HttpError);
    expect(sentAt).toHaveLength(1);
  });

  it("waits for the reset before the next request once Remaining reached 0", async () => {
    const spent = {
      "x-ratelimit-limit": "60",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": seconds(20),
    };
    const { retrying, clock, sentAt, events } = setup([answer(200, spent), answer(200)]);
    await retrying(GET);
    expect(retrying.lastRateLimit).toEqual({ limit: 60, remaining: 0, resetAt: T0 + 20_000 });
    await retrying(GET);
    expect(clock.sleeps).toEqual([20_250]);
    expect(sentAt[1]).toBe(T0 + 20_250);
    expect(events).toEqual([
      { reason: "rate_limit_exhausted", waitMs: 20_250, attempt: 1, maxAttempts: 5 },
    ]);
  });

  it("does not wait when the reset has already passed", async () => {
    const spent = {
      "x-ratelimit-limit": "60",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": seconds(20),
    };
    const { retrying, clock, sentAt } = setup([answer(200, spent), answer(200)]);
    await retrying(GET);
    clock.advance(21_000);
    await retrying(GET);
    expect(clock.sleeps).toEqual([]);
    expect(sentAt).toHaveLength(2);
  });

  it("refuses to send, rather than wait past the cap, when the limit is used up for long", async () => {
    const spentForTheDay = {
      "x-ratelimit-limit": "1000",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": seconds(3_600),
    };
    const { retrying, clock, sentAt } = setup([answer(200, spentForTheDay)]);
    await retrying(GET);
    const error = await retrying(GET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as Error).message).toBe(
      "the rate limit is used up (0 of 1000 requests left); the request was not sent; try again in 1 h (at 13:00 UTC)",
    );
    expect(sentAt).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it("remembers the rate limit of an error answer too", async () => {
    const headers = {
      "x-ratelimit-limit": "60",
      "x-ratelimit-remaining": "7",
      "x-ratelimit-reset": seconds(9),
    };
    const { retrying } = setup([answer(404, headers)]);
    await expect(retrying(GET)).rejects.toBeInstanceOf(HttpError);
    expect(retrying.lastRateLimit).toEqual({ limit: 60, remaining: 7, resetAt: T0 + 9_000 });
  });

  describe("with retries disabled (--no-retry)", () => {
    it("makes one attempt and says when to try again", async () => {
      const { retrying, sentAt, clock } = setup([answer(429, { "retry-after": "30" })], {
        limit: 0,
      });
      const error = await retrying(GET).catch((e: unknown) => e);
      expect((error as Error).message).toMatch(/try again in 30 s$/);
      expect(sentAt).toHaveLength(1);
      expect(clock.sleeps).toEqual([]);
    });

    it("does not wait for a reset either: it fails without sending", async () => {
      const spent = {
        "x-ratelimit-limit": "60",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": seconds(5),
      };
      const { retrying, sentAt, clock } = setup([answer(200, spent)], { limit: 0 });
      await retrying(GET);
      await expect(retrying(GET)).rejects.toBeInstanceOf(RateLimitError);
      expect(sentAt).toHaveLength(1);
      expect(clock.sleeps).toEqual([]);
    });
  });
});
