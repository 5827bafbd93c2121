/**
 * `petstore add --from`: two passes over the input. The first reads every row
 * and checks it (see rows.ts), so nothing is sent unless the whole input is good
 * (or --skip-invalid says to send the good rows). The second reads the rows again
 * and sends them (see row-sender.ts), at the pace the rate limit allows (see
 * pacer.ts), recording each row's outcome as it is known; the run ends with its
 * report (see outcomes.ts). This file wires them together.
 */
import type { RetryPolicy } from "../client/retry.js";
import { parseBaseUrl } from "../profiles/environments.js";
import { sendRefusal } from "../client/key-safety.js";
import { createSender } from "../client/send.js";
import type { ProxyServer } from "../client/proxy-env.js";
import type { Transport } from "../client/transport.js";
import { EXIT, PetstoreError, UsageError } from "../errors.js";
import type { IO } from "../io.js";
import type { InputFormat } from "./input/input-format.js";
import { InputFormatError } from "./input/input-record.js";
import { openInput, type StdinChunks } from "./input/source.js";
import { formatCount, Outcomes, type BulkReport, type StdoutMode } from "./outcomes.js";
import { realTimers, type Timers } from "./pacer.js";
import { PriorState, readPriorRuns, wasSent } from "./prior-runs.js";
import { ResultsWriter } from "./results.js";
import { openAutoResults } from "./auto-results.js";
import { createPoolTransport } from "./pool-transport.js";
import { checkRecord, digestOf, firstPass, type Row, type RunPlan } from "./rows.js";
import { createPoster, MAX_WAIT_MS, RowSender } from "./row-sender.js";
import { installSignals } from "./signals.js";

export type { BulkReport } from "./outcomes.js";

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
  /** Each row's outcome on stdout: `--json` lines, or `-q` ids (see outcomes.ts). */
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

export async function runBulkAdd(options: BulkOptions, deps: BulkDeps): Promise<BulkReport> {
  const { io, settings } = deps;
  const timers = deps.timers ?? realTimers;
  const now = timers.now;
  const startedAt = now();
  const base = parseBaseUrl(settings.baseUrl);
  if (!base.ok) throw new UsageError(`the base URL ${base.problem}`);
  const baseUrl = base.url;
  const { apiKey, allowInsecure } = settings;
  const refusal = sendRefusal({ baseUrl, apiKey, allowInsecure });
  if (refusal !== undefined) throw refusal;
  // --resume continues its file; --results names a new one (add-from-options.ts refuses both).
  const resultsPath = options.resume ?? options.results;
  const prior = options.resume === undefined ? undefined : await readPriorRuns(options.resume);
  const source = await openInput(options.from, options, deps.stdin);
  try {
    let plan: RunPlan;
    try {
      plan = await firstPass(source, prior, options, io);
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
    const refused = plan.invalid > 0 && !options.skipInvalid;
    const { concurrency } = options;
    const results =
      resultsPath !== undefined
        ? ResultsWriter.open({ path: resultsPath, header, concurrency, resume: prior })
        : refused
          ? undefined
          : await openAutoResults(options.from, plan.rows, header, concurrency, io);
    try {
      if (refused) {
        // The problems are listed again only where they are written: the results file.
        for await (const record of results === undefined ? [] : source.records()) {
          const { row, line, problems } = checkRecord(record);
          if (problems !== undefined) results?.record({ row, line, outcome: "invalid", problems });
        }
        if (results?.failure !== undefined) throw results.failure;
        const where = results !== undefined ? `; every problem is listed in ${resultsPath}` : "";
        throw new UsageError(
          `${formatCount(plan.invalid)} of ${formatCount(plan.rows)} rows ${plan.invalid === 1 ? "is" : "are"} invalid; nothing was sent${where}`,
          "fix them, or add --skip-invalid to send the valid rows",
        );
      }
      const outcomes = new Outcomes(plan, io, now, results, options.stdout);
      // The client's retry table; a bulk run waits longer than a person would (see MAX_WAIT_MS).
      const retry: RetryPolicy = { ...options.retry, maxRetryAfter: MAX_WAIT_MS };
      const sender = new RowSender({
        timers,
        random: deps.random ?? Math.random,
        retry,
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
              proxy: deps.proxy,
            })
          : undefined;
      const post = createPoster(
        createSender({
          baseUrl,
          apiKey: apiKey!,
          timeoutMs: options.timeoutMs,
          allowInsecure,
          transport: deps.transport ?? pool!.transport,
          now,
          userAgent: deps.userAgent,
          debug: options.verbose ? (line) => io.stderr.write(line + "\n") : undefined,
        }),
        retry,
      );

      /** The rows this run sends, in row order; the others are recorded as they are passed. */
      const rows = rowsToSend();
      async function* rowsToSend(): AsyncGenerator<Row> {
        for await (const record of source.records()) {
          const row = checkRecord(record);
          const room = outcomes.room(row.row);
          if (room !== undefined) await room;
          if (sender.stopped !== undefined) return;
          const state = prior?.state(row.row) ?? PriorState.None;
          if (row.problems !== undefined) {
            outcomes.record({ ...row, outcome: "invalid" });
          } else if (state === PriorState.Added) {
            outcomes.earlier(row.row, row.line, "added", prior!.id(row.row));
          } else if (wasSent(state) && !options.retryUnknown) {
            outcomes.earlier(row.row, row.line, "unknown");
          } else {
            outcomes.sending(row.row);
            row.digest = digestOf(row.body!);
            yield row;
          }
        }
      }

      // A results file that cannot be written stops the run: rows in flight are finished.
      if (results) results.onFailure = (error) => sender.stop(error);
      const interrupt = installSignals(deps.handleSignals === true, io, () =>
        sender.stop(
          new PetstoreError("interrupted; the rows in flight were finished", EXIT.INTERRUPTED),
        ),
      );
      const held = plan.heldUnknown;
      if (held > 0) {
        io.stderr.write(
          `petstore add: ${formatCount(held)} row${held === 1 ? "" : "s"} had an unknown outcome in an earlier run and ${held === 1 ? "is" : "are"} not sent again (--retry-unknown sends them)\n`,
        );
      }
      outcomes.start();
      try {
        await sender.send(rows, post, options.concurrency);
      } finally {
        await rows.return(undefined);
        outcomes.stop();
        interrupt();
        pool?.close();
      }
      await results?.durable();
      return outcomes.report(now() - startedAt, sender.stopped);
    } finally {
      await results?.close();
    }
  } finally {
    await source.dispose();
  }
}
