/**
 * `petstore add --from`: two passes over the input. The first reads every row
 * and checks it with the shared schema (and, with --resume, against the results
 * of earlier runs) keeping only counts and the first problems, so nothing is sent
 * unless the whole input is good (or --skip-invalid says to send the good rows).
 * The second reads the rows again and sends them, at the pace the rate limit
 * allows (see pacer.ts), recording each row's outcome as it is known.
 */
import { RESET_MARGIN_MS, computeDelay, type RetryPolicy } from "../client/retry.js";
import { rateLimitFromHeaders, completeRateLimit } from "../client/rate-limit.js";
import { parseBaseUrl } from "../profiles/environments.js";
import { createSender, sendRefusal } from "../client/send.js";
import type { Transport } from "../client/transport.js";
import {
  EXIT,
  HttpError,
  NetworkError,
  PetstoreError,
  RateLimitError,
  UsageError,
  type ExitCode,
} from "../errors.js";
import type { IO } from "../io.js";
import { createPoster, summarize, type Attempt } from "./attempt.js";
import { PacerGate, realTimers, type GateTimers, type Wait } from "./gate.js";
import type { InputFormat } from "./input/format.js";
import { InputFormatError } from "./input/records.js";
import { openInput, type InputSource, type StdinChunks } from "./input/source.js";
import { RatePacer, type Completion } from "./pacer.js";
import { PriorState, readPriorRuns, type PriorRuns } from "./prior-runs.js";
import { Progress, formatCount, formatDuration, type Counts } from "./progress.js";
import { checkResultsPath, ResultsWriter, type ResultLine } from "./results.js";
import { openAutoResults } from "./auto-results.js";
import { openOutcomeStream, type OutcomeStream, type StdoutMode } from "./outcome-stream.js";
import { createPoolTransport } from "./pool-transport.js";
import { describeProblem, readRows, type Row } from "./rows.js";
import { RowsAhead } from "./rows-ahead.js";
import { ServerClock } from "./server-clock.js";
import { inTurns } from "./turns.js";

export interface BulkOptions {
  /** A path, or `-` for stdin. */
  from: string;
  format?: InputFormat;
  /** CSV: send the known columns, ignore the others. */
  ignoreUnknownColumns?: boolean;
  skipInvalid: boolean;
  results?: string;
  resume?: string;
  retryUnknown: boolean;
  concurrency: number;
  timeoutMs: number;
  retry: RetryPolicy;
  verbose: boolean;
  /** Each row's outcome on stdout: `--json` lines, or `-q` ids (see outcome-stream.ts). */
  stdout?: StdoutMode;
}

export interface BulkDeps {
  io: IO;
  settings: { baseUrl: string; apiKey?: string; allowInsecure: boolean };
  userAgent: string;
  stdin: StdinChunks;
  /** Instead of the undici pool (pool-transport.ts). */
  transport?: Transport;
  timers?: GateTimers;
  random?: () => number;
  /** Ctrl-C (SIGINT) and SIGTERM stop the run gracefully: the real CLI only. */
  handleSignals?: boolean;
}

export interface BulkReport {
  rows: number;
  added: number;
  /** Added by an earlier run (--resume). */
  previouslyAdded: number;
  invalid: number;
  failed: number;
  /** Outcome unknown: in this run, or left so by an earlier one and not sent again. */
  unknown: number;
  /** Meant to be sent, but the run stopped first. */
  notSent: number;
  /** Up to SHOWN_ROWS rows whose outcome is unknown. */
  unknownRows: number[];
  elapsedMs: number;
  exitCode: ExitCode;
  /** The results file this run wrote (--results, --resume, or the one of a long run). */
  resultsFile?: string;
  /** Why the run stopped early, when it did. */
  stopped?: PetstoreError;
}

/** Rows named on stderr for a resume that does not match, or whose outcome is unknown. */
const SHOWN = 20;
/** A wait longer than this (the daily limit, a ban) ends the run: resume it later. */
export const MAX_WAIT_MS = 15 * 60_000;

/** Rows read and checked ahead of need, while the service works on the requests just sent. */
const READ_AHEAD = 64;

/** "a 503 answer", "a network error": what a backoff waits out, in a few words. */
function describeFailure(error: PetstoreError): string {
  if (error instanceof HttpError) return `a ${error.status} answer`;
  if (error instanceof NetworkError) return "a network error";
  return "a failed attempt";
}

/** Exit code of a run interrupted by Ctrl-C, as shells report a SIGINT death. */
const INTERRUPTED = EXIT.INTERRUPTED;

interface FirstPass {
  rows: number;
  invalid: number;
  previouslyAdded: number;
  heldUnknown: number;
  toSend: number;
}

function problemsHeading(label: string): string {
  return `petstore add: problems in ${label}:\n`;
}

async function firstPass(
  source: InputSource,
  prior: PriorRuns | undefined,
  options: BulkOptions,
  io: IO,
): Promise<FirstPass> {
  const pass: FirstPass = {
    rows: 0,
    invalid: 0,
    previouslyAdded: 0,
    heldUnknown: 0,
    toSend: 0,
  };
  const mismatches: string[] = [];
  let mismatchCount = 0;
  for (const row of readRows(source, prior !== undefined)) {
    pass.rows++;
    if (row.problems !== undefined) {
      // Every problem, as it is found (a compiler's habit): memory stays flat, and a
      // spreadsheet's every typo is fixed in one round, whether or not --results is given.
      if (pass.invalid++ === 0) io.stderr.write(problemsHeading(source.label));
      for (const problem of row.problems) io.stderr.write(`  ${describeProblem(row, problem)}\n`);
    }
    const state = prior?.state(row.row) ?? PriorState.None;
    const sent =
      state === PriorState.Added || state === PriorState.Sending || state === PriorState.Unknown;
    if (sent && !prior!.sameContent(row.row, row.digest)) {
      if (mismatchCount++ < SHOWN) {
        mismatches.push(
          `row ${row.row} (line ${row.line}) is not the row that was ${state === PriorState.Added ? "added" : "sent"} before`,
        );
      }
      continue;
    }
    if (row.problems !== undefined) continue;
    if (state === PriorState.Added) pass.previouslyAdded++;
    else if (sent && !options.retryUnknown) pass.heldUnknown++;
    else pass.toSend++;
  }
  if (prior !== undefined) {
    for (const row of prior.sentBeyond(pass.rows)) {
      if (mismatchCount++ < SHOWN)
        mismatches.push(`row ${row} was sent before; the input has ${pass.rows} rows`);
    }
  }
  if (mismatchCount > 0) {
    const more = mismatchCount > SHOWN ? `\n  and ${mismatchCount - SHOWN} more` : "";
    throw new UsageError(
      `${source.label} is not the input of the run recorded in ${options.resume}; nothing was sent:\n  ${mismatches.join("\n  ")}${more}`,
      "resume with the same input file (rows may be fixed, not moved), or start a new --results file",
    );
  }
  return pass;
}

function checkConnection(deps: BulkDeps): { baseUrl: string; apiKey: string } {
  const base = parseBaseUrl(deps.settings.baseUrl);
  if (!base.ok) throw new UsageError(`the base URL ${base.problem}`);
  const { apiKey, allowInsecure } = deps.settings;
  const refusal = sendRefusal({ baseUrl: base.url, apiKey, allowInsecure });
  if (refusal !== undefined) throw refusal;
  return { baseUrl: base.url, apiKey: apiKey! };
}

function untilText(localMs: number): string {
  return new Date(localMs).toISOString().replace("T", " ").slice(0, 19) + " UTC";
}

export async function runBulkAdd(options: BulkOptions, deps: BulkDeps): Promise<BulkReport> {
  const timers = deps.timers ?? realTimers;
  const now = timers.now;
  const startedAt = now();
  const io = deps.io;
  const target = checkConnection(deps);
  const resultsPath = options.results ?? options.resume;
  if (options.results !== undefined && options.results !== options.resume) {
    checkResultsPath(options.results);
  }
  const prior = options.resume === undefined ? undefined : await readPriorRuns(options.resume);
  const source = await openInput(options.from, options, deps.stdin);
  try {
    let pass: FirstPass;
    try {
      pass = await firstPass(source, prior, options, io);
    } catch (error) {
      if (error instanceof InputFormatError) {
        throw new UsageError(`${source.label}, ${error.message}; nothing was sent`);
      }
      throw error;
    }
    const header = {
      input: source.label,
      format: source.format,
      startedAt: new Date(startedAt).toISOString(),
      ...(options.resume !== undefined ? { resumed: options.resume } : {}),
    };
    const refused = pass.invalid > 0 && !options.skipInvalid;
    const results =
      resultsPath !== undefined
        ? ResultsWriter.open({
            path: resultsPath,
            header,
            ...(prior !== undefined && options.resume !== undefined
              ? { resume: { path: options.resume, validBytes: prior.validBytes } }
              : {}),
          })
        : refused
          ? undefined
          : await openAutoResults(options.from, pass.rows, header, io);
    try {
      if (refused) {
        if (results !== undefined) await recordInvalid(source, results);
        const where = results !== undefined ? `; every problem is listed in ${resultsPath}` : "";
        throw new UsageError(
          `${formatCount(pass.invalid)} of ${formatCount(pass.rows)} rows ${pass.invalid === 1 ? "is" : "are"} invalid; nothing was sent${where}`,
          "fix them, or add --skip-invalid to send the valid rows",
        );
      }
      return await secondPass(source, prior, results, pass, options, deps, target, startedAt);
    } finally {
      await results?.close();
    }
  } finally {
    await source.dispose();
  }
}

async function recordInvalid(source: InputSource, results: ResultsWriter): Promise<void> {
  for (const row of readRows(source, false)) {
    if (row.problems === undefined) continue;
    results.record({ row: row.row, line: row.line, outcome: "invalid", problems: row.problems });
  }
}

async function secondPass(
  source: InputSource,
  prior: PriorRuns | undefined,
  results: ResultsWriter | undefined,
  pass: FirstPass,
  options: BulkOptions,
  deps: BulkDeps,
  { baseUrl, apiKey }: { baseUrl: string; apiKey: string },
  startedAt: number,
): Promise<BulkReport> {
  const { io } = deps;
  const timers = deps.timers ?? realTimers;
  const now = timers.now;
  const random = deps.random ?? Math.random;
  const counts: Counts = { rows: pass.rows, toSend: pass.toSend, added: 0, failed: 0, unknown: 0 };
  const unknownRows: number[] = [];
  let unknownTotal = 0;
  const outcomes: OutcomeStream | undefined =
    options.stdout === undefined
      ? undefined
      : openOutcomeStream(options.stdout, io.stdout, (row) => prior?.id(row));
  /** A row's outcome (not `added`): to the results file, and to stdout with --json. */
  const record = (line: ResultLine) => {
    results?.record(line);
    outcomes?.record(line);
  };
  const noteUnknown = (row: number) => {
    unknownTotal++;
    if (unknownRows.length < SHOWN) unknownRows.push(row);
  };

  const clock = new ServerClock();
  const pacer = new RatePacer({
    concurrency: options.concurrency,
    marginMs: RESET_MARGIN_MS,
    clock,
  });
  const progress = new Progress(io, counts, { now });
  /** Why every request is held (a pause): said by the progress lines. */
  let pauseWhy = "the service asked to wait";
  let stopped: PetstoreError | undefined;
  const stop = (error: PetstoreError) => {
    if (stopped !== undefined) return;
    stopped = error;
    gate.close();
  };
  const gate = new PacerGate(pacer, timers, (wait: Wait) => {
    if (wait.untilLocalMs === undefined || (wait.reason !== "limit" && wait.reason !== "pause")) {
      progress.waiting(undefined, "");
      return;
    }
    const ms = wait.untilLocalMs - now();
    if (ms > MAX_WAIT_MS) {
      stop(
        new RateLimitError(
          `the rate limit allows no more requests until ${untilText(wait.untilLocalMs)} (in ${formatDuration(ms)}); the run stops here`,
          EXIT.RATE_LIMITED,
          429,
          { method: "POST", url: `${baseUrl}/pets` },
          undefined,
        ),
      );
      return;
    }
    progress.waiting(wait.untilLocalMs, wait.reason === "limit" ? "rate limit reached" : pauseWhy);
  });

  const ahead = new RowsAhead(rowsToSend(), READ_AHEAD);
  const pool =
    deps.transport === undefined
      ? createPoolTransport({
          origin: new URL(baseUrl).origin,
          connections: options.concurrency,
          timeoutMs: options.timeoutMs,
        })
      : undefined;
  // The lines of the results file are written in groups, each group before the
  // requests of the same turn leave: one write instead of two per row, and every
  // `sending` line still precedes its request. Rows are read ahead just after a
  // group has left.
  results?.batchLines();
  const transport = inTurns(deps.transport ?? pool!.transport, {
    ...(results !== undefined ? { beforeWrite: () => results.flush() } : {}),
    afterWrite: () => ahead.fill(),
  });
  // The client's retry table; a bulk run waits longer than a person would (see MAX_WAIT_MS).
  const retry: RetryPolicy = { ...options.retry, maxRetryAfter: MAX_WAIT_MS };
  const post = createPoster(
    createSender({
      baseUrl,
      apiKey,
      timeoutMs: options.timeoutMs,
      allowInsecure: deps.settings.allowInsecure,
      transport,
      now,
      userAgent: deps.userAgent,
      debug: options.verbose ? (line) => io.stderr.write(line + "\n") : undefined,
    }),
    retry,
  );

  async function sendRow(row: Row): Promise<void> {
    const { body, digest } = row;
    const at = () => ({ row: row.row, line: row.line, digest });
    let announced = false;
    let last: Attempt | undefined;
    for (let attempt = 1; ; attempt++) {
      const issued = gate.tryAcquire() ?? (await gate.acquire());
      if (issued === undefined) {
        // Stopped while waiting: a row whose earlier attempt was refused was certainly not added.
        if (last !== undefined && last.result.kind === "again") {
          record({ ...at(), outcome: "failed", error: summarize(last.result.error, last.answer) });
          counts.failed++;
        }
        return;
      }
      if (!announced) {
        results?.sending(row.row, row.line, digest!);
        announced = true;
      }
      last = await post(body!);
      const receivedAt = now();
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
          counts.added++;
        } else {
          record({ ...at(), outcome: result.kind, error: summarize(result.error, last.answer) });
          if (result.kind === "unknown") {
            counts.unknown++;
            noteUnknown(row.row);
          } else {
            counts.failed++;
          }
          if (result.stop !== undefined) stop(result.stop);
        }
        return;
      }
      const delay = computeDelay(
        { retry: attempt, status: last.answer?.status, headers },
        retry,
        clock.serviceNow(receivedAt),
        random,
      );
      pauseWhy =
        headers.retryAfterMs !== undefined || result.rateLimited
          ? "the service asked to wait"
          : `retrying after ${describeFailure(result.error)}`;
      gate.complete(issued, completion, receivedAt + delay);
      const giveUp = attempt > retry.limit || delay > retry.maxRetryAfter;
      if (giveUp) {
        record({ ...at(), outcome: "failed", error: summarize(result.error, last.answer) });
        counts.failed++;
        stop(
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

  function* rowsToSend(): Generator<Row> {
    for (const row of readRows(source)) {
      if (stopped !== undefined) return;
      if (row.problems !== undefined) {
        record({ row: row.row, line: row.line, outcome: "invalid", problems: row.problems });
        continue;
      }
      const state = prior?.state(row.row) ?? PriorState.None;
      if (state === PriorState.Added) {
        outcomes?.addedBefore(row.row, row.line, prior!.id(row.row));
        continue;
      }
      if ((state === PriorState.Sending || state === PriorState.Unknown) && !options.retryUnknown) {
        noteUnknown(row.row);
        outcomes?.unknownBefore(row.row, row.line);
        if (state === PriorState.Sending) {
          results?.record({
            row: row.row,
            line: row.line,
            outcome: "unknown",
            digest: row.digest,
            error: { message: "an earlier run was stopped while this row was being sent" },
          });
        }
        continue;
      }
      yield row;
    }
  }

  const interrupt = installSignals(deps, io, () =>
    stop(new PetstoreError("interrupted; the rows in flight were finished", INTERRUPTED)),
  );
  if (pass.heldUnknown > 0) {
    progress.note(
      `${formatCount(pass.heldUnknown)} row${pass.heldUnknown === 1 ? "" : "s"} had an unknown outcome in an earlier run and ${pass.heldUnknown === 1 ? "is" : "are"} not sent again (--retry-unknown sends them)`,
    );
  }
  progress.start();
  try {
    const worker = async () => {
      for (;;) {
        if (stopped !== undefined) return;
        const row = ahead.next();
        if (row === undefined) return;
        // -q prints ids in input order: a row far ahead of one still sending waits (outcome-stream.ts).
        const room = outcomes?.taken(row.row);
        try {
          if (room !== undefined) await room;
          await sendRow(row);
        } finally {
          outcomes?.settled(row.row);
        }
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    ahead.close();
    progress.stop();
    interrupt();
    gate.close();
    pool?.close();
    outcomes?.end();
  }
  await results?.durable();

  const notSent = Math.max(0, pass.toSend - counts.added - counts.failed - counts.unknown);
  const report: BulkReport = {
    rows: pass.rows,
    added: counts.added,
    previouslyAdded: pass.previouslyAdded,
    invalid: pass.invalid,
    failed: counts.failed,
    unknown: unknownTotal,
    notSent,
    unknownRows,
    elapsedMs: now() - startedAt,
    exitCode: exitCodeOf(
      counts.added + pass.previouslyAdded === pass.rows,
      unknownTotal,
      stopped,
      counts.failed + pass.invalid + notSent,
    ),
  };
  if (stopped !== undefined) report.stopped = stopped;
  if (results !== undefined) report.resultsFile = results.path;
  return report;
}

/**
 * 0 when every row is added; else, in this order: 7 when a row's outcome is
 * unknown, the code of what stopped the run (3 auth, 5 rate limit, 6 network,
 * 130 Ctrl-C), 2 for rows that were invalid or refused by the service.
 */
function exitCodeOf(
  allAdded: boolean,
  unknown: number,
  stopped: PetstoreError | undefined,
  notAdded: number,
): ExitCode {
  if (allAdded) return EXIT.OK;
  if (unknown > 0) return EXIT.OUTCOME_UNKNOWN;
  if (stopped !== undefined) return stopped.exitCode;
  return notAdded > 0 ? EXIT.USAGE : EXIT.UNEXPECTED;
}

/** First signal: stop starting rows and finish those in flight. Second: die as usual. */
function installSignals(deps: BulkDeps, io: IO, stop: () => void): () => void {
  if (!deps.handleSignals) return () => {};
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM"];
  let received = false;
  const remove = () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
  function onSignal(signal: NodeJS.Signals): void {
    if (received) {
      remove();
      process.kill(process.pid, signal);
      return;
    }
    received = true;
    io.stderr.write(
      `\npetstore add: stopping; finishing the requests in flight (${signal === "SIGINT" ? "Ctrl-C" : signal} again to quit at once)\n`,
    );
    stop();
  }
  for (const signal of signals) process.on(signal, onSignal);
  return remove;
}
