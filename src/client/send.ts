/**
 * One attempt of one request, for the one-shot client and the bulk add alike:
 * the bearer key (only where it may travel), a timeout, the rate-limit headers
 * read, one debug line, and what became of the request. Retrying is not its
 * business (see retry.ts).
 */
import {
  NetworkError,
  OutcomeUnknownError,
  PetstoreError,
  ProxyError,
  TimeoutError,
} from "../errors.js";
import { redactKey } from "../schema/redact-key.js";
import { sendRefusal, withoutKey } from "./key-safety.js";
import { completeRateLimit, rateLimitFromHeaders } from "./headers.js";
import { errorFromResponse, printable, UNKNOWN_ADD_HINT } from "./response-errors.js";
import type { Transport } from "./transport.js";
import type { HttpResponse } from "../http-response.js";
import type { HttpRequest } from "./types.js";
import { isoTime } from "./wait-text.js";

/** What became of one attempt. Every kind but a 2xx answer carries its typed error. */
export type SendOutcome =
  /** The service answered; `error` is undefined for a 2xx and the typed error of anything else. */
  | { kind: "answered"; response: HttpResponse; error: PetstoreError | undefined }
  /** Certainly not processed: the connection never came up, so no byte reached the service. */
  | { kind: "not-sent"; error: NetworkError }
  /**
   * The request may have reached the service and no complete answer came. For a
   * POST the error is an OutcomeUnknownError: the pet may or may not exist.
   * `timedOut`: no answer came within the timeout (rather than a reset).
   */
  | { kind: "unknown"; error: PetstoreError; timedOut?: boolean };

/**
 * Sends one request once. It throws only when nothing was attempted for a
 * reason of ours (no key, a key that may not travel to the base URL, the proxy).
 */
export type Sender = (request: HttpRequest) => Promise<SendOutcome>;

export interface SendOptions {
  /** Already checked and without a trailing slash (see parseBaseUrl). */
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
  allowInsecure: boolean;
  transport: Transport;
  now: () => number;
  userAgent: string;
  debug?: (line: string) => void;
}

export function createSender(options: SendOptions): Sender {
  const { apiKey, debug, now, timeoutMs, transport } = options;
  const keyNote = apiKey ? `key ${redactKey(apiKey)}` : "no key";
  // Headers and messages come from outside and could echo the key: clean the whole line.
  const log = (line: string) => debug?.(printable(withoutKey(`${line}; ${keyNote}`, apiKey)));
  const refusal = sendRefusal(options);

  return async (request) => {
    if (refusal !== undefined) throw refusal;
    const { method, body } = request;
    const url = options.baseUrl + request.path;
    const headers: Record<string, string> = {
      accept: "application/json",
      authorization: `Bearer ${apiKey}`,
      "user-agent": options.userAgent,
    };
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(Buffer.byteLength(body));
    }
    const startedAt = now();
    let answer;
    try {
      const timeout = Math.min(timeoutMs, request.timeoutMs ?? timeoutMs);
      answer = await transport({ method, url, headers, body, timeoutMs: timeout });
    } catch (error) {
      const failed = (message: string) =>
        log(`${method} ${url} -> failed after ${now() - startedAt} ms: ${message}`);
      // Refused before anything reached the service (a header that cannot be sent, the
      // proxy's refusal): not an outcome, and not retried.
      if (error instanceof PetstoreError && !(error instanceof NetworkError)) {
        if (error instanceof ProxyError) failed(error.message);
        throw error;
      }
      const failure =
        error instanceof NetworkError
          ? error
          : new NetworkError(
              `request failed: ${(error as Error)?.message ?? error}`,
              { method, url },
              true,
            );
      failed(failure.message);
      if (!failure.sent) return { kind: "not-sent", error: failure };
      const timedOut = failure instanceof TimeoutError;
      if (method !== "POST") return { kind: "unknown", error: failure, timedOut };
      // A POST that may have reached the service cannot be reported as a plain network error.
      const unknown = new OutcomeUnknownError(
        `${failure.message} after the request was sent; the pet may or may not have been added`,
        { method, url },
        UNKNOWN_ADD_HINT,
      );
      return { kind: "unknown", error: unknown, timedOut };
    }

    const finishedAt = now();
    const rateLimit = completeRateLimit(rateLimitFromHeaders(answer.headers, finishedAt));
    const response: HttpResponse = { ...answer, rateLimit, durationMs: finishedAt - startedAt };
    // Only with --verbose: a date's first ISO text costs the process about 0.8 MB (time zones).
    if (debug !== undefined) {
      const limits =
        rateLimit === undefined
          ? "no rate-limit headers"
          : `rate limit ${rateLimit.remaining}/${rateLimit.limit} left, resets ${isoTime(rateLimit.resetAt)}`;
      const retryAfter = answer.headers["retry-after"];
      const after = retryAfter === undefined ? "" : `, retry-after ${retryAfter}`;
      log(`${method} ${url} -> ${answer.status} in ${response.durationMs} ms; ${limits}${after}`);
    }
    const ok = answer.status >= 200 && answer.status < 300;
    const error = ok ? undefined : errorFromResponse({ method, url }, response, apiKey);
    return { kind: "answered", response, error };
  };
}
