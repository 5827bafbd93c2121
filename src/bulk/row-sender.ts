/**
 * The second pass of `petstore add --from`: the rows to send go out through the
 * pacer (gate.ts, at the pace the rate limit allows), `concurrency` at a time,
 * each retried as the retry table says, and each row's outcome is recorded (the
 * results file, stdout) and counted (run-report.ts) as it is known.
 */
import { computeDelay, type RetryPolicy } from "../client/retry.js";
import { rateLimitFromHeaders, completeRateLimit } from "../client/rate-limit-headers.js";
import { isoTime } from "../client/wait-text.js";
import { EXIT, HttpError, NetworkError, PetstoreError, RateLimitError } from "../errors.js";
import { summarize, type Attempt, type Poster } from "./attempt.js";
import { PacerGate, type GateTimers, type Wait } from "./gate.js";
import type { OutcomeStream } from "./outcome-stream.js";
import type { Completion, RatePacer } from "./pacer.js";
import { formatDuration, type Progress } from "./progress.js";
import type { ResultLine } from "./result-lines.js";
import type { ResultsWriter } from "./results.js";
import type { Row } from "./rows.js";
import type { RowsAhead } from "./rows-ahead.js";
import type { RunTally } from "./run-report.js";
import type { ServerClock } from "./server-clock.js";

/** A wait longer than this (the daily limit, a ban) ends the run: resume it later. */
export const MAX_WAIT_MS = 15 * 60_000;

/**
 * Requests in a row that were sent and got no answer within the timeout, after
 * which the run stops: a service that takes connections and never answers would
 * otherwise take every row, one timeout each, and leave each one's outcome
 * unknown. (A connection that never comes up is retried as the retry table says.)
 */
export const MAX_TIMEOUTS_IN_A_ROW = 3;

export interface RowSenderParts {
  pacer: RatePacer;
  /** The service's clock, as its answers tell it; the pacer reads it too. */
  clock: ServerClock;
  timers: GateTimers;
  random: () => number;
  retry: RetryPolicy;
  progress: Progress;
  tally: RunTally;
  results: ResultsWriter | undefined;
  outcomes: OutcomeStream | undefined;
  /** Where the rows go: named when the rate limit ends the run. */
  url: string;
}

/** "a 503 answer", "a network error": what a backoff waits out, in a few words. */
function describeFailure(error: PetstoreError): string {
  if (error instanceof HttpError) return `a ${error.status} answer`;
  if (error instanceof NetworkError) return "a network error";
  return "a failed attempt";
}

function untilText(localMs: number): string {
  return isoTime(localMs).replace("T", " ").slice(0, -5) + " UTC";
}

export class RowSender {
  private readonly gate: PacerGate;
  /** Why every request is held (a pause): said by the progress lines. */
  private pauseWhy = "the service asked to wait";
  private stoppedBy: PetstoreError | undefined;
  private timeoutsInARow = 0;

  constructor(private readonly parts: RowSenderParts) {
    this.gate = new PacerGate(parts.pacer, parts.timers, (wait) => this.onWait(wait));
  }

  /** Why the run stopped early, once it has. */
  get stopped(): PetstoreError | undefined {
    return this.stoppedBy;
  }

  /** No row starts any more; those in flight are finished. The first reason stands. */
  stop(error: PetstoreError): void {
    if (this.stoppedBy !== undefined) return;
    this.stoppedBy = error;
    this.gate.close();
  }

  /** The line of a row not sent (invalid): to the results file, and to stdout with --json. */
  record(line: ResultLine): void {
    this.parts.results?.record(line);
    this.parts.outcomes?.record(line);
  }

  /** The outcome of a row sent (not `added`), into the room kept for it (see reserveRow). */
  private recordOutcome(line: ResultLine): void {
    this.parts.results?.recordOutcome(line);
    this.parts.outcomes?.record(line);
  }

  /** Sends every row, `concurrency` at a time, until they are all done or the run stops. */
  async send(rows: RowsAhead<Row>, post: Poster, concurrency: number): Promise<void> {
    const { outcomes } = this.parts;
    const worker = async () => {
      for (;;) {
        if (this.stoppedBy !== undefined) return;
        const row = rows.next();
        if (row === undefined) return;
        // -q prints ids in input order: a row far ahead of one still sending waits (outcome-stream.ts).
        const room = outcomes?.taken(row.row);
        try {
          if (room !== undefined) await room;
          await this.sendRow(row, post);
        } finally {
          outcomes?.settled(row.row);
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  /** No request is let through any more. */
  close(): void {
    this.gate.close();
  }

  private onWait(wait: Wait): void {
    const { progress, timers } = this.parts;
    if (wait.untilLocalMs === undefined || (wait.reason !== "limit" && wait.reason !== "pause")) {
      progress.waiting(undefined, "");
      return;
    }
    const ms = wait.untilLocalMs - timers.now();
    if (ms > MAX_WAIT_MS) {
      this.stop(
        new RateLimitError(
          `the rate limit allows no more requests until ${untilText(wait.untilLocalMs)} (in ${formatDuration(ms)}); the run stops here`,
          EXIT.RATE_LIMITED,
          429,
          { method: "POST", url: this.parts.url },
          undefined,
        ),
      );
      return;
    }
    progress.waiting(
      wait.untilLocalMs,
      wait.reason === "limit" ? "rate limit reached" : this.pauseWhy,
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

  private async sendRow(row: Row, post: Poster): Promise<void> {
    const { gate } = this;
    const { clock, retry, results, outcomes, tally } = this.parts;
    const { body, digest } = row;
    const at = () => ({ row: row.row, line: row.line, digest });
    let announced = false;
    let last: Attempt | undefined;
    for (let attempt = 1; ; attempt++) {
      const issued = gate.tryAcquire() ?? (await gate.acquire());
      if (issued === undefined) {
        // Stopped while waiting: a row whose earlier attempt was refused was certainly not added.
        if (last !== undefined && last.result.kind === "again") {
          this.recordOutcome({
            ...at(),
            outcome: "failed",
            error: summarize(last.result.error, last.answer),
          });
          tally.failed();
        }
        return;
      }
      if (!announced) {
        // No room for the row's lines (a full disk): it is not sent, and the run stops.
        if (results !== undefined && !results.reserveRow(row.row, row.line)) {
          gate.complete(issued, { answered: false, counted: "no" });
          this.stop(results.failure!);
          return;
        }
        results?.sending(row.row, row.line, digest!);
        announced = true;
      }
      last = await post(body!);
      this.countTimeouts(last);
      const receivedAt = this.parts.timers.now();
      clock.observe(last.answer?.headers.date, receivedAt);
      const headers = last.answer
        ? rateLimitFromHeaders(last.answer.headers, clock.serviceNow(receivedAt))
        : {};
      const limit = completeRateLimit(headers);
      const completion: Completion = { answered: last.answer !== undefined, counted: last.counted };
      if (limit !== undefined) completion.limit = limit;
      const { result } = last;
      if (result.kind !== "again") {
        gate.complete(issued, completion);
        if (result.kind === "added") {
          results?.added(row.row, row.line, digest!, result.id);
          outcomes?.added(row.row, row.line, result.id);
          tally.added();
        } else {
          this.recordOutcome({
            ...at(),
            outcome: result.kind,
            error: summarize(result.error, last.answer),
          });
          if (result.kind === "unknown") tally.unknown(row.row);
          else tally.failed();
          if (result.stop !== undefined) this.stop(result.stop);
        }
        return;
      }
      const delay = computeDelay(
        { retry: attempt, status: last.answer?.status, headers },
        retry,
        clock.serviceNow(receivedAt),
        this.parts.random,
      );
      this.pauseWhy =
        headers.retryAfterMs !== undefined || result.rateLimited
          ? "the service asked to wait"
          : `retrying after ${describeFailure(result.error)}`;
      gate.complete(issued, completion, receivedAt + delay);
      const giveUp = attempt > retry.limit || delay > retry.maxRetryAfter;
      if (giveUp) {
        this.recordOutcome({
          ...at(),
          outcome: "failed",
          error: summarize(result.error, last.answer),
        });
        tally.failed();
        this.stop(
          new PetstoreError(
            `${result.error.message} (row ${row.row}, after ${attempt} attempt${attempt === 1 ? "" : "s"})`,
            result.error.exitCode,
            result.error.hint,
          ),
        );
        return;
      }
    }
  }
}
