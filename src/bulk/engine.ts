/**
 * `petstore add --from`: two passes over the input. The first reads every row
 * and checks it (see first-pass.ts), so nothing is sent unless the whole input
 * is good (or --skip-invalid says to send the good rows). The second reads the
 * rows again and sends them (see row-sender.ts), at the pace the rate limit
 * allows (see pacer.ts), recording each row's outcome as it is known; the run
 * ends with its report (see progress.ts). This file wires them together.
 */
import { RESET_MARGIN_MS, type RetryPolicy } from "../client/retry.js";
import { parseBaseUrl } from "../profiles/environments.js";
import { sendRefusal } from "../client/key-safety.js";
import { createSender } from "../client/send.js";
import type { ProxyServer } from "../client/proxy-env.js";
import type { Transport } from "../client/transport.js";
import { EXIT, PetstoreError, UsageError } from "../errors.js";
import type { IO } from "../io.js";
import { firstPass, recordInvalid, type FirstPass } from "./first-pass.js";
import type { InputFormat } from "./input/input-format.js";
import { InputFormatError } from "./input/input-record.js";
import { openInput, type InputSource, type StdinChunks } from "./input/source.js";
import { Pacer, realTimers, type Timers } from "./pacer.js";
import { PriorState, readPriorRuns, type PriorRuns } from "./prior-runs.js";
import { Progress, formatCount, type BulkReport } from "./progress.js";
import { checkResultsPath, ResultsWriter } from "./results.js";
import { openAutoResults } from "./auto-results.js";
import { OutcomeStream, type StdoutMode } from "./outcome-stream.js";
import { createPoolTransport } from "./pool-transport.js";
import { readRows, type Row } from "./rows.js";
import { createPoster, MAX_WAIT_MS, RowSender } from "./row-sender.js";
import { installSignals } from "./signals.js";

export type { BulkReport } from "./progress.js";

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
  /** The proxy the pool goes through (client/proxy-env.ts decides); direct when absent. */
  proxy?: ProxyServer;
  timers?: Timers;
  random?: () => number;
  /** Ctrl-C (SIGINT) and SIGTERM stop the run gracefully: the real CLI only. */
  handleSignals?: boolean;
}

function checkConnection(deps: BulkDeps): { baseUrl: string; apiKey: string } {
  const base = parseBaseUrl(deps.settings.baseUrl);
  if (!base.ok) throw new UsageError(`the base URL ${base.problem}`);
  const { apiKey, allowInsecure } = deps.settings;
  const refusal = sendRefusal({ baseUrl: base.url, apiKey, allowInsecure });
  if (refusal !== undefined) throw refusal;
  return { baseUrl: base.url, apiKey: apiKey! };
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
        if (results?.failure !== undefined) throw results.failure;
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
  const outcomes =
    options.stdout === undefined
      ? undefined
      : new OutcomeStream(options.stdout, io.stdout, (row) => prior?.id(row));

  const progress = new Progress(io, pass, { now });
  // The client's retry table; a bulk run waits longer than a person would (see MAX_WAIT_MS).
  const retry: RetryPolicy = { ...options.retry, maxRetryAfter: MAX_WAIT_MS };
  const pacer = new Pacer({
    concurrency: options.concurrency,
    marginMs: RESET_MARGIN_MS,
    timers,
    onWait: (wait) => sender.onWait(wait),
  });
  const sender = new RowSender({
    pacer,
    now,
    random: deps.random ?? Math.random,
    retry,
    progress,
    results,
    outcomes,
    url: `${baseUrl}/pets`,
  });
  const pool =
    deps.transport === undefined
      ? createPoolTransport({
          origin: new URL(baseUrl).origin,
          connections: options.concurrency,
          timeoutMs: options.timeoutMs,
          ...(deps.proxy === undefined ? {} : { proxy: deps.proxy }),
        })
      : undefined;
  const post = createPoster(
    createSender({
      baseUrl,
      apiKey,
      timeoutMs: options.timeoutMs,
      allowInsecure: deps.settings.allowInsecure,
      transport: deps.transport ?? pool!.transport,
      now,
      userAgent: deps.userAgent,
      debug: options.verbose ? (line) => io.stderr.write(line + "\n") : undefined,
    }),
    retry,
  );

  /** The rows this run sends; the others are recorded as they are passed. */
  const rows = rowsToSend();
  function* rowsToSend(): Generator<Row> {
    for (const row of readRows(source)) {
      if (sender.stopped !== undefined) return;
      if (row.problems !== undefined) {
        sender.record({ row: row.row, line: row.line, outcome: "invalid", problems: row.problems });
        continue;
      }
      const state = prior?.state(row.row) ?? PriorState.None;
      if (state === PriorState.Added) {
        outcomes?.addedBefore(row.row, row.line, prior!.id(row.row));
        continue;
      }
      if ((state === PriorState.Sending || state === PriorState.Unknown) && !options.retryUnknown) {
        progress.unknownBefore(row.row);
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

  // A results file that cannot be written stops the run: rows in flight are finished.
  results?.whenFailed((error) => sender.stop(error));
  const interrupt = installSignals(deps.handleSignals === true, io, () =>
    sender.stop(
      new PetstoreError("interrupted; the rows in flight were finished", EXIT.INTERRUPTED),
    ),
  );
  if (pass.heldUnknown > 0) {
    progress.note(
      `${formatCount(pass.heldUnknown)} row${pass.heldUnknown === 1 ? "" : "s"} had an unknown outcome in an earlier run and ${pass.heldUnknown === 1 ? "is" : "are"} not sent again (--retry-unknown sends them)`,
    );
  }
  progress.start();
  try {
    await sender.send(rows, post, options.concurrency);
  } finally {
    rows.return(undefined);
    progress.stop();
    interrupt();
    pacer.close();
    pool?.close();
    outcomes?.end();
  }
  await results?.durable();
  return progress.report(now() - startedAt, sender.stopped, results?.path);
}
