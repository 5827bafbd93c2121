/**
 * The retry policy and the retry wrapper around `send`: whether a failed attempt
 * may be repeated and how long to wait first; the wrapper remembers the rate
 * limit so that a client that has used it up waits for the reset instead of
 * earning a 429. Time is injected (`sleep`, `now`, `random`), so tests check the
 * exact waits without waiting.
 */
import {
  HostNotFoundError,
  NetworkError,
  RateLimitError,
  TimeoutError,
  TlsError,
} from "../errors.js";
import { type RateLimitHeaders, rateLimitFromHeaders } from "./headers.js";
import { limitUsedUp, stillRateLimited } from "./response-errors.js";
import type { Sender, SendOutcome } from "./send.js";
import type { HttpResponse, RateLimitInfo } from "../http-response.js";
import type { HttpRequest, RetryEvent } from "./types.js";

/**
 * When a request is sent again, and how long it waits first: one table for the
 * one-shot client (withRetry) and the bulk add alike, declared as ky declares
 * its `retry` option. Times are in milliseconds.
 */
export interface RetryPolicy {
  /** Attempts after the first (--max-retries). 0 (--no-retry): one attempt, and no waiting for a rate-limit reset. */
  limit: number;
  /** Methods sent again after a lost answer and after any status in `statusCodes` (the idempotent ones). */
  methods: readonly HttpRequest["method"][];
  /** Statuses after which a request of `methods` is sent again. */
  statusCodes: readonly number[];
  /**
   * Statuses that say the service did not act on the request (429, RFC 6585;
   * 503, RFC 9110 section 15.6.4): sent again whatever the method, as is a
   * request whose connection never came up (unless the TLS handshake failed for
   * a lasting reason). Their Retry-After decides the wait (ky's `afterStatusCodes`);
   * after any other status the backoff does.
   */
  unprocessedStatusCodes: readonly number[];
  /** A wait longer than this (Retry-After, a rate-limit reset) gives up at once instead. */
  maxRetryAfter: number;
  /** Ceiling of the first backoff; it doubles with each retry. */
  backoffBase: number;
  /** Ceiling of any one backoff. */
  backoffLimit: number;
  /**
   * All of one request together, waits and attempts, from its start (the one-shot
   * client: a person is waiting): no retry starts that could not have a second of
   * it left, and a retry's attempt gives up when it runs out. The first attempt
   * has its whole timeout.
   */
  maxTotalWait: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  limit: 4,
  methods: ["GET"],
  statusCodes: [429, 502, 503, 504],
  unprocessedStatusCodes: [429, 503],
  maxRetryAfter: 60_000,
  backoffBase: 1_000,
  backoffLimit: 16_000,
  maxTotalWait: 60_000,
};

/**
 * Added to every wait derived from the service's clock: it counts in whole
 * seconds, so a wait computed to the millisecond could land just before the
 * reset.
 */
export const RESET_MARGIN_MS = 250;

/** A retry is not started with less than this left of `maxTotalWait` for its attempt. */
const SHORTEST_ATTEMPT_MS = 1_000;

export interface DelayInput {
  /** 1-based number of the retry about to be made. */
  retry: number;
  /** The status of the failed attempt's answer; undefined when no answer came. */
  status: number | undefined;
  /** What the failed answer said (empty when there was no answer). */
  headers: RateLimitHeaders;
}

/**
 * Retry-After is authoritative when present on a status of `unprocessedStatusCodes`.
 * Otherwise, when the limit is spent (a 429, or Remaining 0) and the reset is
 * known, never before the reset. Otherwise exponential backoff with "equal
 * jitter": uniform in [ceiling / 2, ceiling), so each wait is longer than the
 * one before, as the contract asks (the fake's verdict checks it: no-backoff).
 */
export function computeDelay(
  { retry, status, headers }: DelayInput,
  policy: RetryPolicy,
  nowMs: number,
  random: () => number,
): number {
  const { retryAfterMs, remaining, resetAt } = headers;
  if (retryAfterMs !== undefined && policy.unprocessedStatusCodes.includes(status!)) {
    return retryAfterMs + RESET_MARGIN_MS;
  }
  const ceiling = Math.min(policy.backoffLimit, policy.backoffBase * 2 ** (retry - 1));
  const backoff = ceiling / 2 + Math.floor((random() * ceiling) / 2);
  const limitSpent = status === 429 || remaining === 0;
  if (!limitSpent || resetAt === undefined || resetAt <= nowMs) return backoff;
  return Math.max(backoff, resetAt - nowMs + RESET_MARGIN_MS);
}

/** How long a new request must wait because the last answer said Remaining: 0. */
export function exhaustedWaitMs(rateLimit: RateLimitInfo | undefined, nowMs: number): number {
  if (rateLimit === undefined || rateLimit.remaining > 0 || rateLimit.resetAt <= nowMs) return 0;
  return rateLimit.resetAt - nowMs + RESET_MARGIN_MS;
}

/**
 * Why a failed attempt may be sent again under `policy`, or undefined. A
 * request that certainly was not processed (its connection never came up, or
 * the service said so) may always be sent again; one that may have been
 * processed only when its method is idempotent. A certificate that is not
 * trusted, or a host that does not exist, fails the same way every time.
 */
export function retryReason(
  outcome: SendOutcome,
  method: HttpRequest["method"],
  policy: RetryPolicy,
): RetryEvent["reason"] | undefined {
  const idempotent = policy.methods.includes(method);
  const { error } = outcome;
  if (outcome.kind === "answered") {
    const { status } = outcome.response;
    const again =
      policy.unprocessedStatusCodes.includes(status) ||
      (idempotent && policy.statusCodes.includes(status));
    if (error === undefined || !again) return undefined;
    return status === 429 ? "rate_limited" : "server_error";
  }
  if (outcome.kind === "not-sent") {
    if (error instanceof TlsError || error instanceof HostNotFoundError) return undefined;
  } else if (!idempotent || !(error instanceof NetworkError)) {
    return undefined;
  }
  return error instanceof TimeoutError ? "timeout" : "network";
}

export type RetryingSend = ((request: HttpRequest) => Promise<HttpResponse>) & {
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

/**
 * The retry wrapper around one `send` (as octokit wraps its request function):
 * a 2xx answer is returned, anything else thrown as its typed error once the
 * policy says it may not, or need not, be sent again.
 */
export function withRetry(send: Sender, policy: RetryPolicy, hooks: RetryHooks): RetryingSend {
  const maxAttempts = policy.limit + 1;
  let lastRateLimit: RateLimitInfo | undefined;

  async function retrying(request: HttpRequest): Promise<HttpResponse> {
    const startedAt = hooks.now();
    const timeLeft = () => policy.maxTotalWait - (hooks.now() - startedAt);
    /** Whether a wait would leave too little of the budget for the attempt after it. */
    const pastBudget = (ms: number) => ms + SHORTEST_ATTEMPT_MS > timeLeft();
    let waited = false;
    const wait = async (ms: number, reason: RetryEvent["reason"], attempt: number) => {
      if (policy.limit === 0 || ms > policy.maxRetryAfter || pastBudget(ms)) return false;
      waited = true;
      hooks.onRetry?.({ reason, waitMs: ms, attempt, maxAttempts });
      await hooks.sleep(ms);
      return true;
    };

    const spent = lastRateLimit;
    const untilReset = exhaustedWaitMs(spent, hooks.now());
    if (untilReset > 0 && !(await wait(untilReset, "rate_limit_exhausted", 1))) {
      throw limitUsedUp(request, spent!, hooks.now());
    }
    for (let attempt = 1; ; attempt++) {
      // After a wait, an attempt has what is left of the budget (in tenths of a second) at most.
      const timeoutMs = waited ? Math.floor(timeLeft() / 100) * 100 : undefined;
      const outcome = await send(timeoutMs === undefined ? request : { ...request, timeoutMs });
      const response = outcome.kind === "answered" ? outcome.response : undefined;
      if (response?.rateLimit !== undefined) lastRateLimit = response.rateLimit;
      const { error } = outcome;
      if (error === undefined) return response!;
      const reason = retryReason(outcome, request.method, policy);
      if (reason === undefined) throw error;
      const nowMs = hooks.now();
      const headers = response ? rateLimitFromHeaders(response.headers, nowMs) : {};
      const input = { retry: attempt, status: response?.status, headers };
      const delay = computeDelay(input, policy, nowMs, hooks.random);
      if (attempt < maxAttempts && (await wait(delay, reason, attempt + 1))) continue;
      if (!(error instanceof RateLimitError)) throw error;
      // More attempts could help only if they ran out before the waiting did.
      const moreAttemptsHelp = policy.limit > 0 && attempt >= maxAttempts && !pastBudget(delay);
      throw stillRateLimited(error, { attempts: attempt, waitMs: delay, nowMs, moreAttemptsHelp });
    }
  }

  return Object.defineProperty(retrying, "lastRateLimit", {
    get: () => lastRateLimit,
  }) as RetryingSend;
}
