/**
 * One POST of one row, and what its result means for the row and for the run.
 *
 * - 2xx: added.
 * - 429, 503, or a connection that never came up: certainly not processed, so
 *   the same row is sent again after the wait (Retry-After, the reset, backoff).
 * - A timeout or reset after sending, or a 500/502/504: the pet may exist;
 *   the row is `unknown` and is never sent again without --retry-unknown.
 * - 400 (and 409, 422): the service refused this row; the run goes on.
 * - Anything else (401, 403, 404, a redirect...) would refuse every row the
 *   same way: the row fails and the run stops; the rest stays for --resume.
 */
import type { Transport, TransportResponse } from "../client/transport.js";
import { createSend, type SendOptions } from "../client/send.js";
import {
  HttpError,
  NetworkError,
  OutcomeUnknownError,
  PetstoreError,
  RateLimitError,
} from "../errors.js";
import { parseJson } from "../schema/json.js";
import { ErrorBody, INT64_MAX, INT64_MIN } from "../schema/pet.js";
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

/**
 * `base` as for the client's send. One send serves every POST: the client's
 * send calls the transport synchronously, before its first await, so the answer
 * box of the POST being started is handed to it through `starting`.
 */
export function createPoster(base: Omit<SendOptions, "transport">, transport: Transport): Poster {
  let starting: { answer?: TransportResponse } | undefined;
  const send = createSend({
    ...base,
    transport: (request) => {
      const box = starting;
      starting = undefined;
      if (box === undefined) throw new Error("a request the bulk add did not start");
      return transport(request).then((answer) => (box.answer = answer));
    },
  });
  return async (body) => {
    const box: { answer?: TransportResponse } = {};
    let result: AttemptResult;
    try {
      starting = box;
      let sent: ReturnType<typeof send>;
      try {
        sent = send({ method: "POST", path: "/pets", body });
      } finally {
        starting = undefined;
      }
      const response = await sent;
      result = { kind: "added" };
      const id = idOf(response.body);
      if (id !== undefined) result.id = id;
    } catch (error) {
      result = classify(error, box.answer);
    }
    const { answer } = box;
    const counted =
      answer !== undefined ? (answer.status === 429 ? "no" : "yes") : notAnswered(result);
    const attempt: Attempt = { result, counted };
    if (answer !== undefined) attempt.answer = answer;
    return attempt;
  };
}

/** Without an answer, only a request that may have been sent can have been counted. */
function notAnswered(result: AttemptResult): "no" | "maybe" {
  return result.kind === "unknown" ? "maybe" : "no";
}

function idOf(body: string): bigint | undefined {
  try {
    const value = parseJson(body);
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
