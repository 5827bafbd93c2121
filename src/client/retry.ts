/**
 * The retry wrapper around `send` (as octokit wraps its request function): it
 * decides whether a failed attempt may be repeated and how long to wait first,
 * and it remembers the rate limit so that a client that has used it up waits for
 * the reset instead of earning a 429. Time is injected (`sleep`, `now`,
 * `random`), so tests check the exact waits without waiting.
 */
import {
  HostNotFoundError,
  HttpError,
  NetworkError,
  type PetstoreError,
  RateLimitError,
  TimeoutError,
  TlsError,
} from "../errors.js";
import { type RateLimitHeaders, rateLimitFromHeaders } from "./rate-limit.js";
import { limitUsedUp, stillRateLimited } from "./rate-limit-errors.js";
import type { HttpRequest, HttpResponse, RateLimitInfo, RetryEvent } from "./types.js";

export interface RetryPolicy {
  /** false is --no-retry: one attempt, and no waiting for a rate-limit reset. */
  enabled: boolean;
  /** Attempts after the first (--max-retries). */
  maxRetries: number;
  /** All waits of one request together; a wait that would pass it gives up at once. */
  maxTotalWaitMs: number;
  /** Ceiling of the first backoff; it doubles with each retry. */
  baseDelayMs: number;
  /** Ceiling of any one backoff. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  enabled: true,
  maxRetries: 4,
  maxTotalWaitMs: 60_000,
  baseDelayMs: 1_000,
  maxDelayMs: 16_000,
};

/**
 * Added to every wait derived from the service's clock: it counts in whole
 * seconds, so a wait computed to the millisecond could land just before the
 * reset.
 */
export const RESET_MARGIN_MS = 250;

export interface DelayInput {
  /** 1-based number of the retry about to be made. */
  retry: number;
  /** The failed attempt was answered 429. */
  rateLimited: boolean;
  /** What the failed answer said (empty when there was no answer). */
  headers: RateLimitHeaders;
}

/**
 * Retry-After is authoritative when present. Otherwise, when the limit is spent
 * (a 429, or Remaining 0) and the reset is known, never before the reset.
 * Otherwise exponential backoff with full jitter: uniform in [0, ceiling).
 */
export function computeDelay(
  input: DelayInput,
  policy: RetryPolicy,
  nowMs: number,
  random: () => number,
): number {
  const { retryAfterMs, remaining, resetAt } = input.headers;
  if (retryAfterMs !== undefined) return retryAfterMs + RESET_MARGIN_MS;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (input.retry - 1));
  const backoff = Math.floor(random() * ceiling);
  const limitSpent = input.rateLimited || remaining === 0;
  if (limitSpent && resetAt !== undefined && resetAt > nowMs) {
    return Math.max(backoff, resetAt - nowMs + RESET_MARGIN_MS);
  }
  return backoff;
}

/** How long a new request must wait because the last answer said Remaining: 0. */
export function exhaustedWaitMs(rateLimit: RateLimitInfo | undefined, nowMs: number): number {
  if (rateLimit === undefined || rateLimit.remaining > 0 || rateLimit.resetAt <= nowMs) return 0;
  return rateLimit.resetAt - nowMs + RESET_MARGIN_MS;
}

/**
 * Why a failed attempt may be repeated, or undefined. A GET can always be
 * repeated. A POST only when the service certainly did not handle it: a 429 or
 * 503 (it refused), or a connection that never came up. (A POST that failed after
 * it was sent reaches here as OutcomeUnknownError and is never repeated.)
 */
export function retryReason(
  error: unknown,
  method: HttpRequest["method"],
): RetryEvent["reason"] | undefined {
  const idempotent = method === "GET";
  if (error instanceof RateLimitError) return "rate_limited";
  if (error instanceof TlsError || error instanceof HostNotFoundError) return undefined;
  if (error instanceof TimeoutError) return idempotent || !error.sent ? "timeout" : undefined;
  if (error instanceof NetworkError) return idempotent || !error.sent ? "network" : undefined;
  if (error instanceof HttpError) {
    if (error.status === 503) return "server_error";
    if (idempotent && (error.status === 502 || error.status === 504)) return "server_error";
  }
  return undefined;
}

export type Send = (request: HttpRequest) => Promise<HttpResponse>;
export type RetryingSend = Send & {
  /** The rate limit of the last answer that carried one. */
  readonly lastRateLimit: RateLimitInfo | undefined;
};

export interface RetryHooks {
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  random: () => number;
  /** Called before each wait, with what is about to happen. */
  onRetry?: (event: RetryEvent) => void;
}

export function withRetry(send: Send, policy: RetryPolicy, hooks: RetryHooks): RetryingSend {
  const maxAttempts = policy.enabled ? policy.maxRetries + 1 : 1;
  let lastRateLimit: RateLimitInfo | undefined;

  function observe(response: HttpResponse | undefined): void {
    if (response?.rateLimit !== undefined) lastRateLimit = response.rateLimit;
  }

  async function retrying(request: HttpRequest): Promise<HttpResponse> {
    let waitedMs = 0;
    const wait = async (
      ms: number,
      reason: RetryEvent["reason"],
      attempt: number,
      giveUp: () => PetstoreError,
    ) => {
      if (!policy.enabled || waitedMs + ms > policy.maxTotalWaitMs) throw giveUp();
      waitedMs += ms;
      hooks.onRetry?.({ reason, waitMs: ms, attempt, maxAttempts });
      await hooks.sleep(ms);
    };

    const spent = lastRateLimit;
    const untilReset = exhaustedWaitMs(spent, hooks.now());
    if (spent !== undefined && untilReset > 0) {
      await wait(untilReset, "rate_limit_exhausted", 1, () =>
        limitUsedUp(request, spent, hooks.now()),
      );
    }

    for (let attempt = 1; ; attempt++) {
      try {
        const response = await send(request);
        observe(response);
        return response;
      } catch (error) {
        const response = error instanceof HttpError ? error.response : undefined;
        observe(response);
        const reason = retryReason(error, request.method);
        if (reason === undefined) throw error;
        const nowMs = hooks.now();
        const headers = response ? rateLimitFromHeaders(response.headers, nowMs) : {};
        const delay = computeDelay(
          { retry: attempt, rateLimited: reason === "rate_limited", headers },
          policy,
          nowMs,
          hooks.random,
        );
        // More attempts could help only if they ran out before the waiting did.
        const moreAttemptsHelp =
          policy.enabled && attempt >= maxAttempts && waitedMs + delay <= policy.maxTotalWaitMs;
        const giveUp = () =>
          error instanceof RateLimitError
            ? stillRateLimited(error, { attempts: attempt, waitMs: delay, nowMs, moreAttemptsHelp })
            : (error as PetstoreError);
        if (attempt >= maxAttempts) throw giveUp();
        await wait(delay, reason, attempt + 1, giveUp);
      }
    }
  }

  return Object.defineProperty(retrying, "lastRateLimit", {
    get: () => lastRateLimit,
  }) as RetryingSend;
}
