/**
 * The second pass of `petstore add --from`: the rows to send go out at the pace
 * the pacer allows, `concurrency` at a time, each retried as the client's retry
 * table says, and each row's outcome is recorded (the results file, stdout) and
 * counted (outcomes.ts) as it is known. What an answer means:
 *
 * - 2xx: added, with the id of the answer, else the one its Location names.
 * - What the retry table sends again (429, 503, a connection that never came
 *   up): certainly not processed, so the same row is sent again after the wait.
 * - A timeout or reset after sending, or a 500/502/504: the pet may exist; the
 *   row is `unknown` and is never sent again without --retry-unknown.
 * - 400 (and 409, 422): the service refused this row; the run goes on.
 * - Anything else (401, 403, 404, a 507 full disk, a redirect, a certificate
 *   that is not trusted, a host that does not exist...) would refuse every row
 *   the same way: the row fails and the run stops; the rest stays for --resume.
 */
import { completeRateLimit, idFromLocation, rateLimitFromHeaders } from "../client/headers.js";
import { computeDelay, RESET_MARGIN_MS, retryReason, type RetryPolicy } from "../client/retry.js";
import type { Sender, SendOutcome } from "../client/send.js";
import { formatWait, isoTime } from "../client/wait-text.js";
import { EXIT, HttpError, OutcomeUnknownError, PetstoreError, RateLimitError } from "../errors.js";
import type { HttpResponse } from "../http-response.js";
import { parseJson } from "../schema/json.js";
import { ErrorBody, INT64_MAX, INT64_MIN } from "../schema/pet.js";
import type { Outcomes } from "./outcomes.js";
import { Pacer, type Completion, type Timers, type Wait } from "./pacer.js";
import {
  cutText,
  MAX_STORED_CODE,
  MAX_STORED_MESSAGE,
  type ErrorSummary,
  type ResultsWriter,
} from "./results.js";
import type { Row } from "./rows.js";

/** A wait longer than this (the daily limit, a ban) ends the run: resume it later. */
export const MAX_WAIT_MS = 15 * 60_000;

/**
 * Requests in a row that were sent and got no answer within the timeout, after
 * which the run stops: a service that takes connections and never answers would
 * otherwise take every row, one timeout each, and leave each one's outcome
 * unknown. (A connection that never comes up is retried as the retry table says.)
 */
export const MAX_TIMEOUTS_IN_A_ROW = 3;

type AttemptResult =
  | { kind: "added"; id?: bigint }
  | { kind: "again"; error: PetstoreError; rateLimited: boolean }
  | { kind: "unknown" | "failed"; error: PetstoreError; stop?: PetstoreError };

export interface Attempt {
  result: AttemptResult;
  /** The service's answer as it came, when one came. */
  answer?: HttpResponse;
  /** Whether the service may have counted the request against the rate limit. */
  counted: Completion["counted"];
  /** Sent, and no answer came within the timeout. */
  timedOut?: boolean;
}

export type Poster = (body: string) => Promise<Attempt>;

const ROW_SPECIFIC = new Set([400, 409, 422]);

/** One POST of one row through the client's `send`, and what its outcome means. */
export function createPoster(send: Sender, policy: RetryPolicy): Poster {
  return async (body) => {
    let outcome: SendOutcome;
    try {
      outcome = await send({ method: "POST", path: "/pets", body });
    } catch (error) {
      // Refused before anything was sent (the run checked the key and URL first, so a bug of ours).
      const refused =
        error instanceof PetstoreError
          ? error
          : new PetstoreError(`unexpected: ${(error as Error)?.message ?? String(error)}`, 1);
      return { result: { kind: "failed", error: refused, stop: refused }, counted: "no" };
    }
    const answer = outcome.kind === "answered" ? outcome.response : undefined;
    // Without an answer, only a request that may have been sent can have been counted.
    let counted: Completion["counted"] = outcome.kind === "not-sent" ? "no" : "maybe";
    if (answer !== undefined) counted = answer.status === 429 ? "no" : "yes";
    const timedOut = outcome.kind === "unknown" && outcome.timedOut === true;
    const attempt = { answer, counted, timedOut };
    const { error } = outcome;
    if (error === undefined) {
      const id = idOf(answer!.body) ?? idFromLocation(answer!.headers.location);
      return { ...attempt, result: { kind: "added", id } };
    }
    const reason = retryReason(outcome, "POST", policy);
    if (reason !== undefined) {
      return {
        ...attempt,
        result: { kind: "again", error, rateLimited: reason === "rate_limited" },
      };
    }
    if (outcome.kind === "unknown" || error instanceof OutcomeUnknownError) {
      return { ...attempt, result: { kind: "unknown", error } };
    }
    const stop = answer !== undefined && ROW_SPECIFIC.has(answer.status) ? undefined : error;
    return { ...attempt, result: { kind: "failed", error, stop } };
  };
}

function idOf(body: string): bigint | undefined {
  try {
    // What Int64 accepts, without a schema run per answer.
    const id = (parseJson(body) as { id?: unknown } | null)?.id;
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
      // Not JSON: the status says enough.
    }
  }
  return summary;
}

export interface RowSenderParts {
  timers: Timers;
  random: () => number;
  retry: RetryPolicy;
  results: ResultsWriter | undefined;
  outcomes: Outcomes;
  /** Where the rows go: named when the rate limit ends the run. */
  url: string;
}

export class RowSender {
  /** Why every request is held (a pause): said by the progress lines. */
  private pauseWhy = "the service asked to wait";
  /** Why the run stopped early, once it has. */
  stopped: PetstoreError | undefined;
  private timeoutsInARow = 0;
  private readonly pacer: Pacer;

  constructor(private readonly parts: RowSenderParts) {
    const { timers } = parts;
    this.pacer = new Pacer({
      marginMs: RESET_MARGIN_MS,
      timers,
      onWait: (wait) => this.onWait(wait),
    });
  }

  /** No row starts any more; those in flight are finished. The first reason stands. */
  stop(error: PetstoreError): void {
    if (this.stopped !== undefined) return;
    this.stopped = error;
    this.pacer.close();
  }

  /**
   * Sends every row, `concurrency` at a time, until they are all done or the run
   * stops. Each request's next row is read (parsed, checked, its body and digest
   * made) right after the requests of its turn have left, while the service works
   * on them, rather than between an answer and the next request; memory holds a
   * row per request in flight, whatever the length of the input.
   */
  async send(rows: AsyncIterator<Row>, post: Poster, concurrency: number): Promise<void> {
    const take = async (): Promise<Row | undefined> => {
      const next = this.stopped === undefined ? await rows.next() : undefined;
      return next?.done === false ? next.value : undefined;
    };
    const worker = async () => {
      let next = take();
      for (let row = await next; row !== undefined; row = await next) {
        let ahead: Promise<Row | undefined> | undefined;
        try {
          // Read once the requests of this turn have left (a microtask after this one's).
          const sent = () => queueMicrotask(() => (ahead ??= take()));
          if (this.stopped === undefined) await this.sendRow(row, post, sent);
        } finally {
          this.parts.outcomes.settled(row.row);
        }
        next = ahead ?? take();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    this.pacer.close();
  }

  /** Told by the pacer each time requests are held, and why. */
  onWait(wait: Wait): void {
    const { outcomes } = this.parts;
    const now = this.parts.timers.now;
    const until =
      wait.reason === "limit" || wait.reason === "pause" ? wait.untilLocalMs : undefined;
    if (until === undefined || until - now() <= MAX_WAIT_MS) {
      outcomes.waiting(until, wait.reason === "limit" ? "rate limit reached" : this.pauseWhy);
      return;
    }
    const when = isoTime(until).replace("T", " ").slice(0, -5) + " UTC";
    this.stop(
      new RateLimitError(
        `the rate limit allows no more requests until ${when} (in ${formatWait(until - now())}); the run stops here`,
        EXIT.RATE_LIMITED,
        429,
        { method: "POST", url: this.parts.url },
        undefined,
      ),
    );
  }

  /** Any answer ends a run of timeouts; MAX_TIMEOUTS_IN_A_ROW of them end the run. */
  private countTimeouts(attempt: Attempt): void {
    if (attempt.answer !== undefined) this.timeoutsInARow = 0;
    if (attempt.timedOut !== true || ++this.timeoutsInARow < MAX_TIMEOUTS_IN_A_ROW) return;
    this.stop(
      new PetstoreError(
        `${this.timeoutsInARow} requests in a row got no answer within the timeout (${new URL(this.parts.url).host} took them but did not answer); the run stops here`,
        EXIT.NETWORK,
        "check that the service is up; a slow one may need a longer --timeout",
      ),
    );
  }

  /** A row sent that was not added: its outcome. */
  private notAdded(row: Row, outcome: "failed" | "unknown", last: Attempt, error: PetstoreError) {
    const { digest } = row;
    const summary = summarize(error, last.answer);
    this.parts.outcomes.record({ row: row.row, line: row.line, outcome, digest, error: summary });
  }

  /** `sent` is called once the row's first request has left. */
  private async sendRow(row: Row, post: Poster, sent: () => void): Promise<void> {
    const { pacer } = this;
    const { retry, results, outcomes } = this.parts;
    const now = this.parts.timers.now;
    let last: Attempt | undefined;
    for (let attempt = 1; ; attempt++) {
      const issued = await pacer.acquire();
      if (issued === undefined) {
        // Stopped while waiting: a row whose earlier attempt was refused was certainly not added.
        if (last?.result.kind === "again") this.notAdded(row, "failed", last, last.result.error);
        return;
      }
      // Its `sending` line is on disk before the request leaves (a full disk: not sent).
      if (attempt === 1 && results && !(await results.sending(row.row, row.line, row.digest!))) {
        pacer.complete(issued, { answered: false, counted: "no" });
        return;
      }
      const answer = post(row.body!);
      if (attempt === 1) sent();
      last = await answer;
      this.countTimeouts(last);
      const receivedAt = now();
      pacer.observeDate(last.answer?.headers.date, receivedAt);
      const headers = last.answer
        ? rateLimitFromHeaders(last.answer.headers, pacer.serviceNow(receivedAt))
        : {};
      const answered = last.answer !== undefined;
      const limit = completeRateLimit(headers);
      const completion: Completion = { answered, counted: last.counted, limit };
      const { result } = last;
      if (result.kind !== "again") {
        pacer.complete(issued, completion);
        const { digest } = row;
        if (result.kind === "added") {
          outcomes.record({
            row: row.row,
            line: row.line,
            outcome: "added",
            digest,
            id: result.id,
          });
        } else {
          this.notAdded(row, result.kind, last, result.error);
          if (result.stop !== undefined) this.stop(result.stop);
        }
        return;
      }
      const delay = computeDelay(
        { retry: attempt, status: last.answer?.status, headers },
        retry,
        pacer.serviceNow(receivedAt),
        this.parts.random,
      );
      const { error } = result;
      const failure = error instanceof HttpError ? `a ${error.status} answer` : "a network error";
      const asked = headers.retryAfterMs !== undefined || result.rateLimited;
      this.pauseWhy = asked ? "the service asked to wait" : `retrying after ${failure}`;
      pacer.complete(issued, completion, receivedAt + delay);
      if (attempt > retry.limit || delay > retry.maxRetryAfter) {
        this.notAdded(row, "failed", last, result.error);
        // A wait too long to make names its end, as it does to a row waiting for it.
        if (delay > MAX_WAIT_MS)
          this.onWait({ go: false, reason: "pause", untilLocalMs: receivedAt + delay });
        const attempts = `${attempt} attempt${attempt === 1 ? "" : "s"}`;
        const { message, exitCode, hint } = result.error;
        this.stop(
          new PetstoreError(`${message} (row ${row.row}, after ${attempts})`, exitCode, hint),
        );
        return;
      }
    }
  }
}
