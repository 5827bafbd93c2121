/**
 * One attempt of one request, for the one-shot client and the bulk add alike:
 * the bearer key (only where it may travel), a timeout, the rate-limit headers
 * read, one debug line, and what became of the request. Retrying is not its
 * business (see retry.ts).
 */
import {
  EXIT,
  NetworkError,
  OutcomeUnknownError,
  PetstoreError,
  ProxyError,
  type RequestSummary,
  TimeoutError,
} from "../errors.js";
import { redactKey } from "../schema/redact-key.js";
import { assertKeyMayTravelTo, withoutKey } from "./key-safety.js";
import { UNKNOWN_ADD_HINT } from "./created.js";
import { completeRateLimit, rateLimitFromHeaders } from "./rate-limit-headers.js";
import { errorFromResponse, printable } from "./response-errors.js";
import type { Transport } from "./transport.js";
import type { HttpResponse, RateLimitInfo } from "../http-response.js";
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
 * reason of ours (no key, a key that may not travel to the base URL).
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

function describeRateLimit(headers: Record<string, string>, rateLimit?: RateLimitInfo): string {
  const parts = [
    rateLimit === undefined
      ? "no rate-limit headers"
      : `rate limit ${rateLimit.remaining}/${rateLimit.limit} left, resets ${isoTime(rateLimit.resetAt)}`,
  ];
  const retryAfter = headers["retry-after"];
  if (retryAfter !== undefined) parts.push(`retry-after ${retryAfter}`);
  return parts.join(", ");
}

/** A POST that may have reached the service cannot be reported as a plain network error. */
function failureOf(error: unknown, request: RequestSummary): PetstoreError {
  const networkError =
    error instanceof NetworkError
      ? error
      : new NetworkError(
          `request failed: ${(error as Error)?.message ?? String(error)}`,
          request,
          true,
        );
  if (request.method === "POST" && networkError.sent) {
    return new OutcomeUnknownError(
      `${networkError.message} after the request was sent; the pet may or may not have been added`,
      request,
      UNKNOWN_ADD_HINT,
    );
  }
  return networkError;
}

/** The headers of every request: JSON both ways, the key, who asks; a body's type and length. */
function requestHeaders(
  authorization: string,
  userAgent: string,
  body: string | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {
    accept: "application/json",
    authorization,
    "user-agent": userAgent,
  };
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    headers["content-length"] = String(Buffer.byteLength(body));
  }
  return headers;
}

/**
 * Why no request may be sent with these settings, or undefined: the same for
 * every path (a bulk add asks before it reads its input).
 */
export function sendRefusal(
  options: Pick<SendOptions, "baseUrl" | "apiKey" | "allowInsecure">,
): PetstoreError | undefined {
  if (!options.apiKey) {
    return new PetstoreError(
      "no API key",
      EXIT.AUTH,
      "run `petstore auth login`, or set PETSTORE_API_KEY",
    );
  }
  try {
    assertKeyMayTravelTo(new URL(options.baseUrl), options.allowInsecure);
  } catch (error) {
    return error as PetstoreError;
  }
  return undefined;
}

export function createSender(options: SendOptions): Sender {
  const { apiKey, debug, now, timeoutMs, transport, userAgent } = options;
  const keyNote = apiKey ? `key ${redactKey(apiKey)}` : "no key";
  // Headers and messages come from outside and could echo the key: clean the whole line.
  const log = debug && ((line: string) => debug(printable(withoutKey(line, apiKey))));
  const refusal = sendRefusal(options);
  const authorization = `Bearer ${apiKey}`;

  return async (request) => {
    if (refusal !== undefined) throw refusal;
    const url = options.baseUrl + request.path;
    const summary: RequestSummary = { method: request.method, url };
    const startedAt = now();
    let answer;
    try {
      answer = await transport({
        method: request.method,
        url,
        headers: requestHeaders(authorization, userAgent, request.body),
        body: request.body,
        timeoutMs: Math.min(timeoutMs, request.timeoutMs ?? timeoutMs),
      });
    } catch (error) {
      const took = now() - startedAt;
      const failed = (message: string) =>
        log?.(`${request.method} ${url} -> failed after ${took} ms: ${message}; ${keyNote}`);
      // Refused before anything reached the service (a header that cannot be sent, the
      // proxy's refusal): not an outcome, and not retried.
      if (error instanceof PetstoreError && !(error instanceof NetworkError)) {
        if (error instanceof ProxyError) failed(error.message);
        throw error;
      }
      const failure = failureOf(error, summary);
      failed(failure.message);
      return error instanceof NetworkError && !error.sent
        ? { kind: "not-sent", error }
        : { kind: "unknown", error: failure, timedOut: error instanceof TimeoutError };
    }

    const finishedAt = now();
    const response: HttpResponse = {
      status: answer.status,
      headers: answer.headers,
      body: answer.body,
      rateLimit: completeRateLimit(rateLimitFromHeaders(answer.headers, finishedAt)),
      durationMs: finishedAt - startedAt,
    };
    log?.(
      `${request.method} ${url} -> ${response.status} in ${response.durationMs} ms; ${describeRateLimit(response.headers, response.rateLimit)}; ${keyNote}`,
    );
    const ok = response.status >= 200 && response.status < 300;
    return {
      kind: "answered",
      response,
      error: ok ? undefined : errorFromResponse(summary, response, apiKey),
    };
  };
}
