/**
 * One attempt of one request: the bearer key (only where it may travel), a
 * timeout, the rate-limit headers read, one debug line, and any failure turned
 * into a typed error. Retrying is not its business (see retry.ts).
 */
import {
  EXIT,
  NetworkError,
  OutcomeUnknownError,
  PetstoreError,
  type RequestSummary,
} from "../errors.js";
import { redactKey } from "../profiles/redact-key.js";
import { assertKeyMayTravelTo, withoutKey } from "./key-safety.js";
import { completeRateLimit, rateLimitFromHeaders } from "./rate-limit.js";
import { errorFromResponse, printable } from "./response-errors.js";
import type { Send } from "./retry.js";
import type { Transport } from "./transport.js";
import type { HttpResponse, RateLimitInfo } from "./types.js";

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

export function describeRateLimit(
  headers: Record<string, string>,
  rateLimit?: RateLimitInfo,
): string {
  const parts = [
    rateLimit === undefined
      ? "no rate-limit headers"
      : `rate limit ${rateLimit.remaining}/${rateLimit.limit} left, resets ${new Date(rateLimit.resetAt).toISOString()}`,
  ];
  const retryAfter = headers["retry-after"];
  if (retryAfter !== undefined) parts.push(`retry-after ${retryAfter}`);
  return parts.join(", ");
}

/** A POST that may have reached the service cannot be reported as a plain network error. */
export function failureOf(error: unknown, request: RequestSummary): PetstoreError {
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
      "check with `petstore list` before adding it again",
    );
  }
  return networkError;
}

/** The headers of every request: JSON both ways, the key, who asks; a body's type and length. */
export function requestHeaders(
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

export function createSend(options: SendOptions): Send {
  const { apiKey, debug } = options;
  const keyNote = apiKey ? `key ${redactKey(apiKey)}` : "no key";
  // Headers and messages come from outside and could echo the key: clean the whole line.
  const log = debug && ((line: string) => debug(printable(withoutKey(line, apiKey))));

  return async (request) => {
    const url = options.baseUrl + request.path;
    const summary: RequestSummary = { method: request.method, url };
    if (!apiKey) {
      throw new PetstoreError(
        "no API key",
        EXIT.AUTH,
        "run `petstore auth login`, or set PETSTORE_API_KEY",
      );
    }
    assertKeyMayTravelTo(new URL(url), options.allowInsecure);

    const headers = requestHeaders(`Bearer ${apiKey}`, options.userAgent, request.body);

    const startedAt = options.now();
    let answer;
    try {
      answer = await options.transport({
        method: request.method,
        url,
        headers,
        body: request.body,
        timeoutMs: options.timeoutMs,
      });
    } catch (error) {
      const failure = failureOf(error, summary);
      const took = options.now() - startedAt;
      log?.(`${request.method} ${url} -> failed after ${took} ms: ${failure.message}; ${keyNote}`);
      throw failure;
    }

    const finishedAt = options.now();
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
    if (response.status >= 200 && response.status < 300) return response;
    throw errorFromResponse(summary, response, apiKey);
  };
}
