/**
 * Bulk intake, `petstore add --from <file>`, run as a user runs it (node bin/petstore.js).
 *
 * Unlimited key: rows per second of the whole command (spawn to exit) on a 10,000-row NDJSON
 * file, against a fresh serve on a 10,000-pet file, beside the durable POST rate the load driver
 * reaches on another fresh serve of the same size with as many connections as the command has
 * requests in flight (the server-write phase's machinery). Both servers get the same warm-up
 * load first; rounds alternate which goes first. The results file must hold an `added` outcome
 * for every row, and serve's file every id it names.
 *
 * Free-plan key (60 requests a minute, windows aligned to Unix minutes): a run of N > 60 rows on
 * a fresh key cannot end before the window that lets the last rows through has opened. The
 * figure is the command's wall time against that necessary time, computed from the moment it was
 * spawned; 429s are counted in serve's access log. The run starts only when the next minute
 * boundary is far enough away that fixed costs (start-up, the last requests) do not decide the
 * ratio, so the free part runs before or after the unlimited part, whichever waits less.
 *
 * Memory: unlimited runs on ten and twenty times the rows; peak RSS of the second against the
 * first (the input is streamed, so memory stays flat).
 *
 * Reference, for context only (no goal): bench/lib/reference-bulk-client.mjs, a minimal
 * raw-socket bulk client (checks the rows, journals each one before and after its POST, no
 * pacing, retries, resume or progress), timed the same way on the same rows, interleaved with the
 * unlimited rounds on its own fresh, warmed-up serve: how close to serve's POST rate a node client
 * can get when it shares this machine's cores with serve. The same client on an undici Pool
 * (`--transport undici`) is the floor for any client on undici, as the CLI is by design.
 *
 * https (the real service's scheme): the CLI (undici's Pool) against the same CLI built with the
 * node:https keep-alive pool it had before (bench/lib/reference-cli.mjs), rounds alternating which
 * goes first, on four times the rows (HTTPS_FACTOR). The goal is against bench/lib/https-stub.mjs,
 * which answers as serve does without storing anything: the comparison is of two clients, and a
 * real service runs on other machines than its client. For context the same runs go through a TLS
 * front (bench/lib/tls-front.mjs) before a fresh serve whose file is in /dev/shm when there is
 * one (on a shared machine the disk's fdatasync latency would hide both clients).
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { cpus } from "node:os";
import { join } from "node:path";
import { httpsPart, HTTPS_GOAL } from "../lib/bulk-https.mjs";
import {
  checkProblems,
  cleanEnv,
  count,
  readOutcomes,
  runBulk,
  STORE_SIZE,
  unlimitedBulkRound,
  writeRows,
} from "../lib/bulk-runs.mjs";
import { describeLoadTool } from "../lib/load.mjs";
import { TIME_BIN } from "../lib/paired.mjs";
import { runToEnd } from "../lib/processes.mjs";
import { measured, notAvailable, phaseError } from "../lib/report.mjs";
import { median } from "../lib/stats.mjs";
import { postLoad } from "../lib/writes.mjs";

export const name = "bulk-import";
export const summary = "petstore add --from rows/s vs serve's own POST rate; Free-plan pacing";

/** Free plan: 60 now and 10 in the next minute, so the run lasts at most a minute. */
const FREE_ROWS = 70;
const FREE_PER_MINUTE = 60;
const FREE_KEY = "benchfree";
/** Used, and said so, when `add --help` names no default concurrency. */
const FALLBACK_CONCURRENCY = 16;
const RATE_GOAL = { on: "figure", op: ">=", value: 1500 };
/**
 * Over plain http the CLI shares 2 cores with serve and pays for a general HTTP client (undici);
 * the goal that counts is https (HTTPS_GOAL): see docs/benchmarks.md.
 */
const RATIO_GOAL = { on: "ratio", op: ">=", value: 0.4 };
const FREE_GOAL = { on: "ratio", op: "<=", value: 1.05 };
const NO_429_GOAL = { on: "figure", op: "<=", value: 0 };
/** Memory stays flat: from 10x the rows (100,000) to 20x, peak RSS grows by at most 15 %. */
const MEMORY_FACTOR = 10;
const MEMORY_GOAL = { on: "ratio", op: "<=", value: 1.15 };
const MINUTE_MS = 60_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const msToNextMinute = () => MINUTE_MS - (Date.now() % MINUTE_MS);
const lastLine = (text) => text.trim().split("\n").pop() ?? "";

/** The option's block in `add --help`: its line and the wrapped lines under it. */
function optionHelp(help, flag) {
  const lines = help.split("\n");
  const start = lines.findIndex((line) => new RegExp(`^\\s*(-\\w, )?${flag}\\b`).test(line));
  if (start < 0) return undefined;
  const block = [lines[start]];
  for (const line of lines.slice(start + 1)) {
    if (/^\s*-/.test(line) || line.trim() === "") break;
    block.push(line);
  }
  return block.join(" ").replace(/\s+/g, " ");
}

/** What `add --help` offers: --from at all, and the default of --concurrency. */
async function bulkHelp(repoRoot, bin) {
  const run = await runToEnd(process.execPath, [bin, "add", "--help"], { cwd: repoRoot });
  if (run.code !== 0) return { reason: `add --help failed (exit ${run.code})` };
  if (!optionHelp(run.stdout, "--from")) {
    return { reason: "add --help offers no --from yet (bulk intake not wired in)" };
  }
  const block = optionHelp(run.stdout, "--concurrency");
  const found = block && /\((?:default:?\s*)?(\d+)\)|default:?\s*(\d+)/i.exec(block);
  const concurrency = found ? Number(found[1] ?? found[2]) : undefined;
  return {
    concurrency: concurrency ?? FALLBACK_CONCURRENCY,
    source: concurrency
      ? `--concurrency ${concurrency} passed explicitly: the default add --help names`
      : `--concurrency ${FALLBACK_CONCURRENCY} passed explicitly: add --help names no default${block ? ` ("${block.trim()}")` : ""}`,
  };
}

async function postRound(ctx, plan, round) {
  const { settings, tmp } = ctx;
  const server = await ctx.serve.start(await ctx.pets.fresh(STORE_SIZE));
  try {
    const load = (seconds) =>
      postLoad(server, { seconds, connections: plan.concurrency, scratchDir: tmp });
    await load(settings.warmupSeconds);
    ctx.log(`round ${round + 1}: POST load, ${plan.concurrency} connections, ${server.baseUrl}`);
    return await load(settings.loadSeconds);
  } finally {
    await server.stop();
  }
}

async function unlimitedPart(ctx, plan) {
  const { settings } = ctx;
  const bulkRuns = [];
  const postRuns = [];
  const referenceRuns = [];
  const undiciRuns = [];
  for (let round = 0; round < settings.bulkRounds; round++) {
    // The references are informational: a round of one that breaks is noted, not fatal.
    const referenceRound = (subject) =>
      unlimitedBulkRound(ctx, plan, round, subject).catch((error) => ({
        round,
        error: error instanceof Error ? error.message : String(error),
      }));
    const steps = [
      async () => bulkRuns.push(await unlimitedBulkRound(ctx, plan, round)),
      async () => referenceRuns.push(await referenceRound("reference")),
      async () => undiciRuns.push(await referenceRound("reference-undici")),
      async () => postRuns.push(await postRound(ctx, plan, round)),
    ];
    for (const step of round % 2 === 0 ? steps : steps.reverse()) await step();
  }

  const rows = plan.rows;
  const COMPLETE_GOAL = { on: "figure", op: ">=", value: rows };
  const bulkRate = median(bulkRuns.map((r) => r.rowsPerSecond));
  const postRate = median(postRuns.map((r) => r.rps));
  const problems = bulkRuns.map((r) => checkProblems(r, rows));
  const rateMeasurement = `bulk add --from: ${count(rows)} rows against serve, unlimited key`;
  const cliNotes = bulkRuns.map(
    (r) =>
      `round ${r.round + 1}: ${count(rows)} rows in ${(r.ms / 1000).toFixed(2)} s = ${Math.round(r.rowsPerSecond)} rows/s` +
      (r.cliCpuMs === undefined
        ? ""
        : `; CLI CPU ${Math.round(r.cliCpuMs)} ms (${Math.round((r.cliCpuMs * 1000) / rows)} us a row), peak RSS ${(r.cliMaxRssKiB / 1024).toFixed(0)} MiB`) +
      `; serve CPU ${Math.round(r.serverCpu * 100)}% (${Math.round(r.serverCpuUsPerRow)} us a row)` +
      (r.summaryLine ? `; it said "${r.summaryLine.replace(/^petstore add: /, "")}"` : ""),
  );
  ctx.record(
    measured({
      phase: name,
      measurement: rateMeasurement,
      figure: bulkRate,
      unit: "rows/s",
      goal: RATE_GOAL,
      notes: [
        `node bin/petstore.js add --from rows.ndjson --results <tmp> ${plan.concurrencySource}; wall time spawn to exit, fresh serve on ${count(STORE_SIZE)} pets warmed by a ${ctx.settings.warmupSeconds} s POST load`,
        ...cliNotes,
      ],
    }),
  );
  const postNotes = postRuns.map(
    (r, i) =>
      `POST load round ${i + 1}: ${Math.round(r.rps)} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, serve CPU ${Math.round(r.serverCpu * 100)}% (${Math.round(r.cpuUsPerRequest)} us a request)` +
      (r.loaderCpu === undefined
        ? ""
        : `, load tool CPU ${Math.round(r.loaderCpu * 100)}% (${Math.round((r.loaderCpu * r.seconds * 1e6) / Math.max(1, r.requests))} us a request)`) +
      `; ${count(r.created)} created, ${count(r.ok)} 2xx counted` +
      (r.non2xx + r.errors > 0 ? `, ${r.non2xx} non-2xx, ${r.errors} socket errors` : ""),
  );
  const roundRatios = bulkRuns.map((r, i) => (r.rowsPerSecond / postRuns[i].rps).toFixed(2));
  ctx.record(
    measured({
      phase: name,
      measurement: `bulk add --from vs serve's durable POST at ${plan.concurrency} connections`,
      figure: bulkRate,
      unit: "rows/s",
      baseline: postRate,
      baselineLabel: `serve POST req/s, ${plan.concurrency} connections`,
      goal: RATIO_GOAL,
      notes: [
        `POST load: the server-write machinery (${describeLoadTool(plan.concurrency)}), ${ctx.settings.loadSeconds} s after a ${ctx.settings.warmupSeconds} s warm-up, fresh serve on ${count(STORE_SIZE)} pets; ratio per round ${roundRatios.join(", ")}`,
        ...postNotes,
      ],
    }),
  );
  recordReference(ctx, plan, referenceRuns, postRuns, postRate, "raw");
  recordReference(ctx, plan, undiciRuns, postRuns, postRate, "undici");
  const brokenRounds = problems.filter((p) => p.length > 0).length;
  const completeRow = measured({
    phase: name,
    measurement: `bulk add --from: rows recorded added and found in serve's file`,
    figure: Math.min(...bulkRuns.map((r) => r.inFile)),
    unit: "rows",
    goal: COMPLETE_GOAL,
    notes:
      brokenRounds > 0
        ? problems.flatMap((p, i) => (p.length ? [`round ${i + 1}: ${p.join("; ")}`] : []))
        : [
            `every round: exit 0, ${count(rows)} added outcomes in --results, ${count(rows)} distinct ids all in serve's file after it stopped, ids advanced by ${count(rows)} around the run`,
          ],
  });
  // Any other problem (exit code, duplicates, ids that advanced by more) fails the row too.
  if (brokenRounds > 0) completeRow.result = "fail";
  ctx.record(completeRow);
  ctx.detail("unlimited", {
    plan: { ...plan, bin: undefined },
    bulkRuns,
    postRuns,
    referenceRuns,
  });
  await memoryPart(ctx, plan, bulkRuns, postRate);
}

/**
 * The input is streamed, not held: peak RSS of a run of ten times the rows (100,000 in a full run)
 * against a run of twenty times, the same command against the same kind of serve (GNU time's %M).
 * Memory that grows with the input shows as a ratio well above 1 (a read-ahead that kept every
 * row measured 1.35); V8 sizing its heap to the allocation rate does not (it settles within the
 * first tens of thousands of rows, which is why the unlimited rounds' RSS is not the baseline).
 */
async function memoryPart(ctx, plan, bulkRuns, postRate) {
  const sizes = [plan.rows * MEMORY_FACTOR, plan.rows * MEMORY_FACTOR * 2];
  const [rows, doubled] = sizes;
  const measurement = `bulk add --from: peak RSS with ${count(doubled)} rows vs ${count(rows)} rows`;
  if (!existsSync(TIME_BIN)) {
    const reason = `no peak RSS: ${TIME_BIN} (GNU time, Debian package time) is not installed`;
    ctx.record(notAvailable({ phase: name, measurement, unit: "KiB", goal: MEMORY_GOAL, reason }));
    return;
  }
  const runs = [];
  for (const [i, n] of sizes.entries()) {
    const big = {
      ...plan,
      rows: n,
      rowsFile: await writeRows(join(plan.dir, `rows-memory-${n}.ndjson`), n, "Memory"),
    };
    runs.push(await unlimitedBulkRound(ctx, big, ctx.settings.bulkRounds + i));
  }
  const problems = runs.flatMap((run, i) =>
    checkProblems(run, sizes[i]).map((p) => `${count(sizes[i])} rows: ${p}`),
  );
  const small = median(bulkRuns.map((r) => r.cliMaxRssKiB).filter(Number.isFinite));
  const row = measured({
    phase: name,
    measurement,
    figure: runs[1].cliMaxRssKiB,
    unit: "KiB",
    baseline: runs[0].cliMaxRssKiB,
    baselineLabel: `${count(rows)} rows`,
    goal: MEMORY_GOAL,
    notes: [
      `the same command with --results on NDJSON files of ${count(rows)} and ${count(doubled)} rows, each against a fresh serve warmed like the rounds above; for scale, ${count(plan.rows)} rows peaked at ${(small / 1024).toFixed(1)} MiB (V8 grows its young generation with the allocation rate)`,
      ...runs.map(
        (run, i) =>
          `${count(sizes[i])} rows in ${(run.ms / 1000).toFixed(1)} s = ${Math.round(run.rowsPerSecond)} rows/s, peak RSS ${(run.cliMaxRssKiB / 1024).toFixed(1)} MiB, CLI CPU ${Math.round((run.cliCpuMs * 1000) / sizes[i])} us a row`,
      ),
      problems.length > 0
        ? `CHECK FAILED: ${problems.join("; ")}`
        : `check: both exit 0, every row an added outcome in --results, every id in serve's file`,
    ],
  });
  if (problems.length > 0) row.result = "fail";
  ctx.record(row);
  // The longer run also shows the rate once start-up and warm-up no longer weigh on it.
  ctx.record(
    measured({
      phase: name,
      measurement: `context: bulk add --from, ${count(rows)} rows (the first memory run) vs serve's durable POST at ${plan.concurrency} connections`,
      figure: runs[0].rowsPerSecond,
      unit: "rows/s",
      baseline: postRate,
      baselineLabel: `serve POST req/s, ${plan.concurrency} connections`,
      notes: [
        `informational, no goal: the goal is on ${count(plan.rows)} rows, where the command's fixed costs (start-up, the validation pass, the engine's warm-up) weigh ten times as much; CLI CPU ${Math.round((runs[0].cliCpuMs * 1000) / rows)} us a row here, against ${Math.round(median(bulkRuns.map((r) => (r.cliCpuMs * 1000) / plan.rows)))} us over ${count(plan.rows)} rows`,
      ],
    }),
  );
}

/**
 * A reference client's row: its rows/s against the same POST baseline, with no goal. `transport`:
 * "raw" (hand-written HTTP on sockets) or "undici" (the same client on an undici Pool, as the CLI).
 */
function recordReference(ctx, plan, referenceRuns, postRuns, postRate, transport) {
  const rows = plan.rows;
  const measuredRuns = referenceRuns.filter((r) => r.error === undefined);
  const roundNotes = referenceRuns.map((r) => {
    const post = postRuns[r.round];
    if (r.error !== undefined) return `reference round ${r.round + 1}: failed to run: ${r.error}`;
    const problems = checkProblems(r, rows);
    return (
      `reference round ${r.round + 1}: ${count(rows)} rows in ${(r.ms / 1000).toFixed(2)} s = ${Math.round(r.rowsPerSecond)} rows/s` +
      (post ? `, ratio ${(r.rowsPerSecond / post.rps).toFixed(2)} to that round's POST load` : "") +
      (r.cliCpuMs === undefined
        ? ""
        : `; client CPU ${Math.round(r.cliCpuMs)} ms (${Math.round((r.cliCpuMs * 1000) / rows)} us a row), peak RSS ${(r.cliMaxRssKiB / 1024).toFixed(0)} MiB`) +
      `; serve CPU ${Math.round(r.serverCpu * 100)}% (${Math.round(r.serverCpuUsPerRow)} us a row)` +
      (problems.length > 0
        ? `; CHECK FAILED: ${problems.join("; ")}`
        : `; check: exit 0, ${count(rows)} added, distinct ids all in serve's file after it stopped, ids advanced by ${count(rows)} around the run`)
    );
  });
  ctx.record(
    measured({
      phase: name,
      measurement:
        transport === "raw"
          ? `reference: minimal raw-socket client (no pacing, no retries) vs serve's durable POST at ${plan.concurrency} connections`
          : `reference: the same minimal client on an undici Pool vs serve's durable POST at ${plan.concurrency} connections`,
      figure: measuredRuns.length > 0 ? median(measuredRuns.map((r) => r.rowsPerSecond)) : null,
      unit: "rows/s",
      baseline: postRate,
      baselineLabel: `serve POST req/s, ${plan.concurrency} connections`,
      notes: [
        `informational, no goal: node bench/lib/reference-bulk-client.mjs --from rows.ndjson --results <tmp> --concurrency ${plan.concurrency} --transport ${transport}, a floor for a node client sharing this machine's ${cpus().length} cores with serve: every row checked first, one request in flight per keep-alive connection, ` +
          (transport === "raw"
            ? "requests written by hand"
            : "requests dispatched to an undici Pool (flat headers, byte bodies), the floor for any client on undici, as the CLI must be") +
          `, in one batch per event-loop turn after their "sending" lines (sha256 digest) reach the results file, fdatasync at the end; no pacing, retries, resume, progress or lossless int64; same rows, fresh serve on ${count(STORE_SIZE)} pets warmed by a ${ctx.settings.warmupSeconds} s POST load, wall time spawn to exit, interleaved with the CLI rounds`,
        ...roundNotes,
      ],
    }),
  );
}

/** The time the Free plan's minute windows make necessary for `rows` requests from `t0`. */
export function necessaryMs(t0, rows, perMinute = FREE_PER_MINUTE) {
  const windows = Math.ceil(rows / perMinute);
  return (Math.floor(t0 / MINUTE_MS) + windows - 1) * MINUTE_MS - t0;
}

/** Lines of serve's access log: time (ms), method, path, status. */
function accessLines(log) {
  const lines = [];
  for (const match of log.matchAll(
    /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (\S+) (\S+) (\d{3}|\S+) [\d.]+ms$/gm,
  )) {
    lines.push({ at: Date.parse(match[1]), method: match[2], path: match[3], status: match[4] });
  }
  return lines;
}

async function freePart(ctx, plan) {
  const { settings } = ctx;
  const leadMs = settings.freeLeadSeconds * 1000;
  const measurement = `bulk add --from: ${FREE_ROWS} rows on a fresh Free-plan key vs the time its limit makes necessary`;
  const countMeasurement = `bulk add --from, Free-plan key: 429 answers in serve's access log`;
  let log = "";
  const file = await ctx.pets.fresh(1_000);
  const server = await ctx.serve.start(file, {
    keys: [`${FREE_KEY}:free`],
    quiet: false,
    onStderr: (chunk) => (log += chunk),
  });
  let stopped = false;
  try {
    if (msToNextMinute() < leadMs) {
      ctx.log(
        `Free plan: waiting ${(msToNextMinute() / 1000).toFixed(1)} s for a minute boundary (a run needs at least ${settings.freeLeadSeconds} s before the next one)`,
      );
      await sleep(msToNextMinute() + 50);
    }
    const results = join(plan.dir, "results-free.ndjson");
    ctx.log(
      `Free plan: add --from ${FREE_ROWS} rows, ${(msToNextMinute() / 1000).toFixed(1)} s before the next minute`,
    );
    const run = await runBulk({
      repoRoot: ctx.repoRoot,
      script: plan.bin,
      args: ["add", "--from", plan.freeRowsFile, "--results", results],
      env: cleanEnv(plan.configDir, {
        PETSTORE_BASE_URL: server.baseUrl,
        PETSTORE_API_KEY: FREE_KEY,
      }),
      scratch: plan.dir,
      timeoutMs: 3 * MINUTE_MS,
    });
    await sleep(150); // the access log is flushed every 100 ms
    await server.stop(30_000);
    stopped = true;

    const t0 = run.startedAt;
    const necessary = necessaryMs(t0, FREE_ROWS);
    const lines = accessLines(log);
    const posts = lines.filter((l) => l.method === "POST");
    const statusCount = (status) => lines.filter((l) => l.status === status).length;
    const tooMany = statusCount("429");
    const created = posts.filter((l) => l.status === "201");
    const boundary = t0 + necessary;
    const lastBatch = created.filter((l) => l.at >= boundary);
    const finals = await readOutcomes(results);
    const added = [...finals.values()].filter((f) => f.outcome === "added").length;
    const timing = [];
    if (created.length > 0) {
      timing.push(`CLI spawn to first 201 ${created[0].at - t0} ms`);
      if (lastBatch.length > 0) {
        timing.push(
          `${lastBatch.length} 201s after the boundary, the first ${lastBatch[0].at - boundary} ms after it, the last ${lastBatch.at(-1).at - boundary} ms after it`,
        );
      }
      timing.push(`last 201 to exit ${Math.round(t0 + run.ms - created.at(-1).at)} ms`);
    }
    const notes = [
      `N = ${FREE_ROWS}: ${FREE_PER_MINUTE} in the minute of the start, ${FREE_ROWS - FREE_PER_MINUTE} in the next; necessary = next minute start - spawn time = ${(necessary / 1000).toFixed(2)} s; actual - necessary = ${Math.round(run.ms - necessary)} ms`,
      `default concurrency; server log: ${timing.join("; ") || "no 201 lines read"}`,
    ];
    if (run.code !== 0) {
      notes.push(`exit ${run.signal ?? run.code}: ${lastLine(run.stderr)}`);
    }
    if (added !== FREE_ROWS || created.length !== FREE_ROWS) {
      notes.push(
        `${added} added outcomes in --results and ${created.length} 201s in the log, expected ${FREE_ROWS}`,
      );
    }
    ctx.record(
      measured({
        phase: name,
        measurement,
        figure: run.ms,
        unit: "ms",
        baseline: necessary,
        baselineLabel: "necessary",
        goal: FREE_GOAL,
        notes,
      }),
    );
    const byStatus = {};
    for (const line of lines) byStatus[line.status] = (byStatus[line.status] ?? 0) + 1;
    ctx.record(
      measured({
        phase: name,
        measurement: countMeasurement,
        figure: tooMany,
        unit: "",
        goal: NO_429_GOAL,
        notes: [`serve without --quiet; access log lines by status ${JSON.stringify(byStatus)}`],
      }),
    );
    ctx.detail("free", {
      rows: FREE_ROWS,
      t0,
      necessaryMs: necessary,
      actualMs: run.ms,
      exitCode: run.code,
      summaryLine: run.summaryLine,
      added,
      byStatus,
      postTimes: posts.map((l) => ({ at: l.at - t0, status: l.status })),
    });
  } finally {
    if (!stopped) await server.stop();
  }
}

export async function run(ctx) {
  const { repoRoot, settings, tmp } = ctx;
  const bin = join(repoRoot, "bin", "petstore.js");
  const unavailable = (reason) => {
    const rows = [
      [`bulk add --from: ${count(settings.bulkRows)} rows against serve, unlimited key`, "rows/s"],
      [`bulk add --from vs serve's durable POST at the same concurrency`, "rows/s"],
      [
        `bulk add --from over https against a stub service: undici's Pool vs the node:https pool (same engine)`,
        "rows/s",
      ],
      [
        `bulk add --from: ${FREE_ROWS} rows on a fresh Free-plan key vs the time its limit makes necessary`,
        "ms",
      ],
      [
        `bulk add --from: peak RSS with ${count(settings.bulkRows * MEMORY_FACTOR * 2)} rows vs ${count(settings.bulkRows * MEMORY_FACTOR)} rows`,
        "KiB",
      ],
    ];
    const goals = [RATE_GOAL, RATIO_GOAL, HTTPS_GOAL, FREE_GOAL, MEMORY_GOAL];
    rows.forEach(([measurement, unit], i) =>
      ctx.record(notAvailable({ phase: name, measurement, unit, goal: goals[i], reason })),
    );
  };
  const serveState = await ctx.serve.available();
  if (!serveState.ok) {
    unavailable(serveState.reason);
    return;
  }
  const help = await bulkHelp(repoRoot, bin);
  if (help.reason) {
    unavailable(help.reason);
    return;
  }

  const dir = join(tmp, "bulk");
  const configDir = join(dir, "config");
  await mkdir(configDir, { recursive: true });
  const plan = {
    bin,
    dir,
    configDir,
    rows: settings.bulkRows,
    concurrency: help.concurrency,
    concurrencySource: help.source,
    rowsFile: await writeRows(join(dir, "rows.ndjson"), settings.bulkRows, "Bulk"),
    freeRowsFile: await writeRows(join(dir, "free-rows.ndjson"), FREE_ROWS, "Free"),
  };
  ctx.log(`${plan.concurrencySource}; load tool ${describeLoadTool(plan.concurrency)}`);

  // A few seconds go to starting serve; the free run needs its lead before the minute ends.
  const freeFirst = msToNextMinute() >= settings.freeLeadSeconds * 1000 + 3_000;
  const parts = [
    ["Free plan", () => freePart(ctx, plan)],
    ["unlimited", () => unlimitedPart(ctx, plan)],
    ["https", () => httpsPart(ctx, plan, name)],
  ];
  // A part that breaks is recorded as such; the other part still runs.
  for (const [label, part] of freeFirst ? parts : parts.reverse()) {
    try {
      await part();
    } catch (error) {
      ctx.record({ ...phaseError(name, error), measurement: `${name}: the ${label} part failed` });
    }
  }
}
