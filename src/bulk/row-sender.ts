/**
 * The second pass of `petstore add --from`: the rows to send go out at the pace
 * the pacer allows, `concurrency` at a time, each retried as the client's retry
 * table says, and each row's outcome is recorded (the results file, stdout) and
 * counted (progress.ts) as it is known. What an answer means:
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
import { computeDelay, retryReason, type RetryPolicy } from "../client/retry.js";
import type { Sender, SendOutcome } from "../client/send.js";
import { isoTime } from "../client/wait-text.js";
import {
  EXIT,
  HttpError,
  NetworkError,
  OutcomeUnknownError,
  PetstoreError,
  RateLimitError,
} from "../errors.js";
import type { HttpResponse } from "../http-response.js";
import { parseJson } from "../schema/json.js";
import { ErrorBody, INT64_MAX, INT64_MIN } from "../schema/pet.js";
import { parseRecordJson } from "./input/input-record.js";
import type { OutcomeStream } from "./outcome-stream.js";
import type { Completion, Pacer, Wait } from "./pacer.js";
import { formatDuration, type Progress } from "./progress.js";
import { cutText, MAX_STORED_CODE, MAX_STORED_MESSAGE, type ErrorSummary } from "./result-lines.js";
import type { ResultLine } from "./result-lines.js";
import type { ResultsWriter } from "./results.js";
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
  | { kind: "unknown"; error: PetstoreError; stop?: PetstoreError }
  | { kind: "failed"; error: PetstoreError; stop?: PetstoreError };

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
  const judge = (outcome: SendOutcome, error: PetstoreError): AttemptResult => {
    const reason = retryReason(outcome, "POST", policy);
    if (reason !== undefined)
      return { kind: "again", error, rateLimited: reason === "rate_limited" };
    if (outcome.kind === "unknown" || error instanceof OutcomeUnknownError) {
      return { kind: "unknown", error };
    }
    if (outcome.kind === "answered" && ROW_SPECIFIC.has(outcome.response.status)) {
      return { kind: "failed", error };
    }
    return { kind: "failed", error, stop: error };
  };
  return (body) =>
    send({ method: "POST", path: "/pets", body }).then(
      (outcome): Attempt => {
        if (outcome.kind !== "answered") {
          const result = judge(outcome, outcome.error);
          // Without an answer, only a request that may have been sent can have been counted.
          if (outcome.kind === "not-sent") return { result, counted: "no" };
          return { result, counted: "maybe", timedOut: outcome.timedOut === true };
        }
        const { response: answer, error } = outcome;
        if (error !== undefined) {
          const counted = answer.status === 429 ? "no" : "yes";
          return { result: judge(outcome, error), counted, answer };
        }
        const id = idOf(answer.body) ?? idFromLocation(answer.headers.location);
        return {
          result: id === undefined ? { kind: "added" } : { kind: "added", id },
          counted: "yes",
          answer,
        };
      },
      // Refused before anything was sent (the run checked the key and URL first, so a bug of ours).
      (error: unknown): Attempt => {
        const refused =
          error instanceof PetstoreError
            ? error
            : new PetstoreError(`unexpected: ${(error as Error)?.message ?? String(error)}`, 1);
        return { result: { kind: "failed", error: refused, stop: refused }, counted: "no" };
      },
    );
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
      // Not JSON: the status says enough.
    }
  }
  return summary;
}

export interface RowSenderParts {
  pacer: Pacer;
  now: () => number;
  random: () => number;
  retry: RetryPolicy;
  progress: Progress;
  results: ResultsWriter | undefined;
  outcomes: OutcomeStream | undefined;
  /** Where the rows go: named when the rate limit ends the run. */
  url: string;
}

interface Taken {
  row: Row;
  room: Promise<void> | undefined;
}

/** "a 503 answer", "a network error": what a backoff waits out, in a few words. */
function describeFailure(error: PetstoreError): string {
  if (error instanceof HttpError) return `a ${error.status} answer`;
  if (error instanceof NetworkError) return "a network error";
  return "a failed attempt";
}

export class RowSender {
  /** Why every request is held (a pause): said by the progress lines. */
  private pauseWhy = "the service asked to wait";
  private stoppedBy: PetstoreError | undefined;
  private timeoutsInARow = 0;

  constructor(private readonly parts: RowSenderParts) {}

  /** Why the run stopped early, once it has. */
  get stopped(): PetstoreError | undefined {
    return this.stoppedBy;
  }

  /** No row starts any more; those in flight are finished. The first reason stands. */
  stop(error: PetstoreError): void {
    if (this.stoppedBy !== undefined) return;
    this.stoppedBy = error;
    this.parts.pacer.close();
  }

  /** The line of a row not sent (invalid): to the results file, and to stdout with --json. */
  record(line: ResultLine): void {
    this.parts.results?.record(line);
    this.parts.outcomes?.record(line);
  }

  /**
   * Sends every row, `concurrency` at a time, until they are all done or the run
   * stops. Each request's next row is read (parsed, checked, its body and digest
   * made) right after that request has left, while the service works on it,
   * rather than between an answer and the next request; memory holds a row per
   * request in flight, whatever the length of the input.
   */
  async send(rows: Iterator<Row>, post: Poster, concurrency: number): Promise<void> {
    const { outcomes } = this.parts;
    // -q prints ids in input order: a row taken far ahead of one still sending waits for room
    // before it is sent (outcome-stream.ts), and every row taken is settled.
    const take = (): Taken | undefined => {
      const next = this.stoppedBy === undefined ? rows.next() : undefined;
      if (next === undefined || next.done === true) return undefined;
      return { row: next.value, room: outcomes?.taken(next.value.row) };
    };
    const worker = async () => {
      for (let taken = take(); taken !== undefined;) {
        const { row, room } = taken;
        let ahead: { taken: Taken | undefined } | undefined;
        const readAhead = () => (ahead ??= { taken: take() });
        try {
          if (room !== undefined) await room;
          // Read once the requests of this turn have left (a microtask after this one's).
          if (this.stoppedBy === undefined) {
            await this.sendRow(row, post, () => queueMicrotask(readAhead));
          }
        } finally {
          outcomes?.settled(row.row);
        }
        taken = readAhead().taken;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  /** Told by the pacer each time requests are held, and why. */
  onWait(wait: Wait): void {
    const { progress, now } = this.parts;
    if (wait.untilLocalMs === undefined || (wait.reason !== "limit" && wait.reason !== "pause")) {
      progress.waiting(undefined, "");
      return;
    }
    const ms = wait.untilLocalMs - now();
    if (ms <= MAX_WAIT_MS) {
      progress.waiting(
        wait.untilLocalMs,
        wait.reason === "limit" ? "rate limit reached" : this.pauseWhy,
      );
      return;
    }
    const until = isoTime(wait.untilLocalMs).replace("T", " ").slice(0, -5) + " UTC";
    this.stop(
      new RateLimitError(
        `the rate limit allows no more requests until ${until} (in ${formatDuration(ms)}); the run stops here`,
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

  /** A row sent that was not added: its outcome, into the room kept for it (see reserveRow). */
  private notAdded(
    row: Row,
    kind: "failed" | "unknown",
    last: Attempt,
    error: PetstoreError,
  ): void {
    const { results, outcomes, progress } = this.parts;
    const line: ResultLine = {
      row: row.row,
      line: row.line,
      outcome: kind,
      digest: row.digest,
      error: summarize(error, last.answer),
    };
    results?.recordOutcome(line);
    outcomes?.record(line);
    if (kind === "unknown") progress.rowUnknown(row.row);
    else progress.rowFailed();
  }

  /** `sent` is called once the row's first request has left. */
  private async sendRow(row: Row, post: Poster, sent: () => void): Promise<void> {
    const { pacer, now, retry, results, outcomes, progress } = this.parts;
    let last: Attempt | undefined;
    for (let attempt = 1; ; attempt++) {
      const issued = pacer.tryAcquire() ?? (await pacer.acquire());
      if (issued === undefined) {
        // Stopped while waiting: a row whose earlier attempt was refused was certainly not added.
        if (last?.result.kind === "again") this.notAdded(row, "failed", last, last.result.error);
        return;
      }
      if (attempt === 1 && results !== undefined) {
        // Room for the row's lines first (a full disk: it is not sent, and the run stops), then
        // its `sending` line, written before the request leaves (one write for the rows of a turn).
        const ready =
          results.reserveRow(row.row, row.line) &&
          (results.sending(row.row, row.line, row.digest!), await results.written());
        if (!ready) {
          pacer.complete(issued, { answered: false, counted: "no" });
          this.stop(results.failure!);
          return;
        }
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
      const completion: Completion = { answered: last.answer !== undefined, counted: last.counted };
      const limit = completeRateLimit(headers);
      if (limit !== undefined) completion.limit = limit;
      const { result } = last;
      if (result.kind === "added") {
        pacer.complete(issued, completion);
        results?.added(row.row, row.line, row.digest!, result.id);
        outcomes?.added(row.row, row.line, result.id);
        progress.rowAdded();
        return;
      }
      if (result.kind !== "again") {
        pacer.complete(issued, completion);
        this.notAdded(row, result.kind, last, result.error);
        if (result.stop !== undefined) this.stop(result.stop);
        return;
      }
      const delay = computeDelay(
        { retry: attempt, status: last.answer?.status, headers },
        retry,
        pacer.serviceNow(receivedAt),
        this.parts.random,
      );
      this.pauseWhy =
        headers.retryAfterMs !== undefined || result.rateLimited
          ? "the service asked to wait"
          : `retrying after ${describeFailure(result.error)}`;
      pacer.complete(issued, completion, receivedAt + delay);
      if (attempt > retry.limit || delay > retry.maxRetryAfter) {
        this.notAdded(row, "failed", last, result.error);
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
