/**
 * One POST of one row through the client's `send`, and what its outcome means
 * for the row and for the run. Whether it is sent again is the client's retry
 * policy (retryReason); the rest is the bulk add's:
 *
 * - 2xx: added, with the id of the answer, else the one its Location names.
 * - What the policy sends again (429, 503, a connection that never came up):
 *   certainly not processed, so the same row is sent again after the wait.
 * - A timeout or reset after sending, or a 500/502/504: the pet may exist;
 *   the row is `unknown` and is never sent again without --retry-unknown.
 * - 400 (and 409, 422): the service refused this row; the run goes on.
 * - Anything else (401, 403, 404, a 507 full disk, a redirect, a certificate
 *   that is not trusted, a host that does not exist...) would refuse every row
 *   the same way: the row fails and the run stops; the rest stays for --resume.
 */
import { retryReason, type RetryPolicy } from "../client/retry.js";
import { idFromLocation } from "../client/created.js";
import type { Sender, SendOutcome } from "../client/send.js";
import type { HttpResponse } from "../http-response.js";
import { OutcomeUnknownError, PetstoreError } from "../errors.js";
import { parseJson } from "../schema/json.js";
import { ErrorBody, INT64_MAX, INT64_MIN } from "../schema/pet.js";
import { parseRecordJson } from "./input/input-record.js";
import { cutText, MAX_STORED_CODE, MAX_STORED_MESSAGE, type ErrorSummary } from "./result-lines.js";

type AttemptResult =
  | { kind: "added"; id?: bigint }
  | { kind: "again"; error: PetstoreError; rateLimited: boolean }
  | { kind: "unknown"; error: PetstoreError; stop?: PetstoreError }
  | { kind: "failed"; error: PetstoreError; stop?: PetstoreError };

export interface Attempt {
  result: AttemptResult;
  /** The service's answer as it came, when one came. */
  answer?: HttpResponse;
  /** Whether the service may have counted the request against the rate limit. */
  counted: "yes" | "no" | "maybe";
  /** Sent, and no answer came within the timeout. */
  timedOut?: boolean;
}

const ROW_SPECIFIC = new Set([400, 409, 422]);

export type Poster = (body: string) => Promise<Attempt>;

export function createPoster(send: Sender, policy: RetryPolicy): Poster {
  return (body) =>
    send({ method: "POST", path: "/pets", body }).then(
      (outcome) => attemptOf(outcome, policy),
      // Refused before anything was sent (the run checked the key and URL first, so a bug of ours).
      (error: unknown) => {
        const refused =
          error instanceof PetstoreError
            ? error
            : new PetstoreError(`unexpected: ${(error as Error)?.message ?? String(error)}`, 1);
        return { result: { kind: "failed", error: refused, stop: refused }, counted: "no" };
      },
    );
}

function attemptOf(outcome: SendOutcome, policy: RetryPolicy): Attempt {
  if (outcome.kind === "answered") {
    const { response: answer, error } = outcome;
    if (error === undefined) {
      const id = idOf(answer.body) ?? idFromLocation(answer.headers.location);
      return {
        result: id === undefined ? { kind: "added" } : { kind: "added", id },
        counted: "yes",
        answer,
      };
    }
    return {
      result: judge(outcome, error, policy),
      counted: answer.status === 429 ? "no" : "yes",
      answer,
    };
  }
  const result = judge(outcome, outcome.error, policy);
  // Without an answer, only a request that may have been sent can have been counted.
  if (outcome.kind === "not-sent") return { result, counted: "no" };
  return { result, counted: "maybe", timedOut: outcome.timedOut === true };
}

function judge(outcome: SendOutcome, error: PetstoreError, policy: RetryPolicy): AttemptResult {
  const reason = retryReason(outcome, "POST", policy);
  if (reason !== undefined) return { kind: "again", error, rateLimited: reason === "rate_limited" };
  if (outcome.kind === "unknown" || error instanceof OutcomeUnknownError) {
    return { kind: "unknown", error };
  }
  if (outcome.kind === "answered" && ROW_SPECIFIC.has(outcome.response.status)) {
    return { kind: "failed", error };
  }
  return { kind: "failed", error, stop: error };
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

/**
 * What a results line (and a --json line) says about an error: the message, and
 * the status and code of the answer; a long message or code is cut (see cutText).
 */
export function summarize(error: PetstoreError, answer: HttpResponse | undefined): ErrorSummary {
  const summary: ErrorSummary = { message: cutText(error.message, MAX_STORED_MESSAGE) };
  if (answer !== undefined) {
    summary.status = answer.status;
    try {
      const body = ErrorBody.safeParse(parseJson(answer.body));
      if (body.success) summary.code = cutText(body.data.code, MAX_STORED_CODE);
    } catch {
      // Not an Error body: the message says what came instead.
    }
  }
  return summary;
}
