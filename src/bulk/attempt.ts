/**
 * One POST of one row, and what its result means for the row and for the run.
 *
 * - 2xx: added.
 * - 429, 503, or a connection that never came up: certainly not processed, so
 *   the same row is sent again after the wait (Retry-After, the reset, backoff).
 * - A timeout or reset after sending, or a 500/502/504: the pet may exist;
 *   the row is `unknown` and is never sent again without --retry-unknown.
 * - 400 (and 409, 422): the service refused this row; the run goes on.
 * - Anything else (401, 403, 404, a 507 full disk, a redirect...) would refuse
 *   every row the same way: the row fails and the run stops; the rest stays for
 *   --resume.
 */
import { completeRateLimit, rateLimitFromHeaders } from "../client/rate-limit.js";
import { errorFromResponse, printable } from "../client/response-errors.js";
import { describeRateLimit, failureOf, requestHeaders } from "../client/send.js";
import { withoutKey } from "../client/key-safety.js";
import type { Transport, TransportResponse } from "../client/transport.js";
import type { HttpResponse, RateLimitInfo } from "../client/types.js";
import {
  HttpError,
  NetworkError,
  OutcomeUnknownError,
  PetstoreError,
  RateLimitError,
  TlsError,
  type RequestSummary,
} from "../errors.js";
import { redactKey } from "../profiles/redact-key.js";
import { parseJson } from "../schema/json.js";
import { ErrorBody, INT64_MAX, INT64_MIN } from "../schema/pet.js";
import { parseRecordJson } from "./input/records.js";
import type { ErrorSummary } from "./results.js";

export type AttemptResult =
  | { kind: "added"; id?: bigint }
  | { kind: "again"; error: PetstoreError; rateLimited: boolean }
  | { kind: "unknown"; error: PetstoreError; stop?: PetstoreError }
  | { kind: "failed"; error: PetstoreError; stop?: PetstoreError };

export interface Attempt {
  result: AttemptResult;
  /** The service's answer as it came, when one came. */
  answer?: TransportResponse;
  /** Whether the service may have counted the request against the rate limit. */
  counted: "yes" | "no" | "maybe";
}

const ROW_SPECIFIC = new Set([400, 409, 422]);

export type Poster = (body: string) => Promise<Attempt>;

export interface PosterOptions {
  /** Already checked and without a trailing slash (see parseBaseUrl). */
  baseUrl: string;
  /** Already checked: present, and allowed to travel to baseUrl (see engine.ts). */
  apiKey: string;
  timeoutMs: number;
  now: () => number;
  userAgent: string;
  debug?: (line: string) => void;
}

/**
 * The client's one attempt (send.ts), cut to what every row repeats: the URL and
 * the key were checked once for the run, the headers are the same but for the
 * length, and a 2xx answer is read no further than its id.
 */
export function createPoster(options: PosterOptions, transport: Transport): Poster {
  const { apiKey, debug, now, timeoutMs } = options;
  const url = options.baseUrl + "/pets";
  const summary: RequestSummary = { method: "POST", url };
  const keyNote = `key ${redactKey(apiKey)}`;
  const log = debug && ((line: string) => debug(printable(withoutKey(line, apiKey))));
  const authorization = `Bearer ${apiKey}`;
  const userAgent = options.userAgent;

  const answered = (answer: TransportResponse, startedAt: number): Attempt => {
    const { status } = answer;
    let rateLimit: RateLimitInfo | undefined;
    if (log !== undefined || status < 200 || status >= 300) {
      rateLimit = completeRateLimit(rateLimitFromHeaders(answer.headers, now()));
    }
    log?.(
      `POST ${url} -> ${status} in ${now() - startedAt} ms; ${describeRateLimit(answer.headers, rateLimit)}; ${keyNote}`,
    );
    if (status >= 200 && status < 300) {
      const id = idOf(answer.body);
      return {
        result: id === undefined ? { kind: "added" } : { kind: "added", id },
        counted: "yes",
        answer,
      };
    }
    const response: HttpResponse = {
      status,
      headers: answer.headers,
      body: answer.body,
      rateLimit,
      durationMs: now() - startedAt,
    };
    const error = errorFromResponse(summary, response, apiKey);
    return { result: classify(error, answer), counted: status === 429 ? "no" : "yes", answer };
  };

  const failed = (error: unknown, startedAt: number): Attempt => {
    const failure = failureOf(error, summary);
    log?.(`POST ${url} -> failed after ${now() - startedAt} ms: ${failure.message}; ${keyNote}`);
    const result = classify(failure, undefined);
    return { result, counted: notAnswered(result) };
  };

  return (body) => {
    const startedAt = now();
    let sent: Promise<TransportResponse>;
    try {
      sent = transport({
        method: "POST",
        url,
        headers: requestHeaders(authorization, userAgent, body),
        body,
        timeoutMs,
      });
    } catch (error) {
      return Promise.resolve(failed(error, startedAt));
    }
    return sent.then(
      (answer) => answered(answer, startedAt),
      (error: unknown) => failed(error, startedAt),
    );
  };
}

/** Without an answer, only a request that may have been sent can have been counted. */
function notAnswered(result: AttemptResult): "no" | "maybe" {
  return result.kind === "unknown" ? "maybe" : "no";
}

/** How `petstore serve` (and any compact writer) begins a Pet: the id first. */
const LEADING_ID = /^\{"id":(0|[1-9][0-9]{0,18})[,}]/;

function idOf(body: string): bigint | undefined {
  const leading = LEADING_ID.exec(body);
  if (leading !== null) {
    const id = BigInt(leading[1]!);
    return id <= INT64_MAX ? id : undefined;
  }
  try {
    const value = parseRecordJson(body);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    // What Int64 accepts, without a schema run per answer.
    const id = (value as Record<string, unknown>).id;
    return typeof id === "bigint" && id >= INT64_MIN && id <= INT64_MAX ? id : undefined;
  } catch {
    return undefined;
  }
}

function classify(error: unknown, answer: TransportResponse | undefined): AttemptResult {
  if (error instanceof RateLimitError) return { kind: "again", error, rateLimited: true };
  if (error instanceof OutcomeUnknownError) return { kind: "unknown", error };
  // Every row would meet the same certificate: the row fails (nothing was sent) and the run stops.
  if (error instanceof TlsError) return { kind: "failed", error, stop: error };
  if (error instanceof NetworkError) {
    // A POST that may have been sent arrives as OutcomeUnknownError; this one never connected.
    return { kind: "again", error, rateLimited: false };
  }
  if (error instanceof HttpError && error.status === 503) {
    return { kind: "again", error, rateLimited: false };
  }
  if (error instanceof PetstoreError) {
    const status = answer?.status;
    if (status !== undefined && ROW_SPECIFIC.has(status)) return { kind: "failed", error };
    return { kind: "failed", error, stop: error };
  }
  // A bug of ours after the request may have left: the row cannot be called anything but unknown.
  const wrapped = new PetstoreError(`unexpected: ${(error as Error)?.message ?? String(error)}`, 1);
  return { kind: "unknown", error: wrapped, stop: wrapped };
}

/** What a results line says about an error: the message, and the status and code of the answer. */
export function summarize(
  error: PetstoreError,
  answer: TransportResponse | undefined,
): ErrorSummary {
  const summary: ErrorSummary = { message: error.message };
  if (answer !== undefined) {
    summary.status = answer.status;
    try {
      const body = ErrorBody.safeParse(parseJson(answer.body));
      if (body.success) summary.code = body.data.code;
    } catch {
      // Not an Error body: the message says what came instead.
    }
  }
  return summary;
}
