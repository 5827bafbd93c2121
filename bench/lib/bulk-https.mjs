/**
 * The bulk-import phase's https rows: the CLI (undici's Pool) against the same source built with
 * the node:https keep-alive pool it replaced (bench/lib/reference-cli.mjs), on HTTPS_FACTOR times
 * the rows, rounds alternating which goes first. The goal is against bench/lib/https-stub.mjs,
 * which answers as serve does without storing anything: the comparison is of two clients, and a
 * real service runs on other machines than its client. For context the same runs go through a TLS
 * front (bench/lib/tls-front.mjs) before a fresh serve whose file is in /dev/shm when there is one
 * (on a shared machine the disk's fdatasync latency would hide both clients).
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  checkProblems,
  count,
  SHM,
  STORE_SIZE,
  stubBulkRound,
  unlimitedBulkRound,
  writeRows,
} from "./bulk-runs.mjs";
import { buildReferenceCli } from "./reference-cli.mjs";
import { measured } from "./report.mjs";
import { median } from "./stats.mjs";

/** undici's Pool against the node:https keep-alive pool it replaced, same engine, over TLS. */
export const HTTPS_GOAL = { on: "ratio", op: ">=", value: 1.3 };
/**
 * The https runs are this many times the unlimited rows: over 10,000 rows a run lasts a second or
 * two, most of it the start-up and warm-up both builds share (V8 compiling the hot path, the young
 * generation growing), which would hide the transports being compared.
 */
const HTTPS_FACTOR = 4;

/**
 * Over https: the CLI (undici's Pool) against the same CLI built with the node:https pool it had
 * before. The goal is on a stub service that costs little CPU, so the clients decide; beside it,
 * for context, the same runs through a TLS front before serve, all on this machine's cores.
 */
export async function httpsPart(ctx, plan, phase) {
  const rows = plan.rows * HTTPS_FACTOR;
  const storeDir = existsSync(SHM) ? await mkdtemp(join(SHM, "petstore-bench-")) : undefined;
  const https = {
    ...plan,
    rows,
    rowsFile: await writeRows(join(plan.dir, "rows-https.ndjson"), rows, "Secure"),
    storeDir,
    referenceBin: await buildReferenceCli(ctx.repoRoot, join(plan.dir, "reference-cli")),
  };
  const stub = { "cli-https": [], "pool-https": [] };
  const serve = { "cli-https": [], "pool-https": [] };
  // Stub rounds are cheap (no store to load or warm): more of them steady the median.
  const stubRounds = ctx.settings.bulkRounds * 2 + 1;
  const serveRounds = ctx.settings.bulkRounds + 1;
  const order = (round) =>
    round % 2 === 0 ? ["cli-https", "pool-https"] : ["pool-https", "cli-https"];
  try {
    for (let round = 0; round < stubRounds; round++) {
      for (const subject of order(round)) {
        stub[subject].push(await stubBulkRound(ctx, https, round, subject));
      }
      if (round >= serveRounds) continue;
      for (const subject of order(round)) {
        const run = await unlimitedBulkRound(ctx, https, round, subject);
        serve[subject].push({ ...run, problems: checkProblems(run, rows) });
      }
    }
  } finally {
    if (storeDir !== undefined) await rm(storeDir, { recursive: true, force: true });
  }
  const common = `node bin/petstore.js add --from rows-https.ndjson (${count(rows)} rows: ${HTTPS_FACTOR}x the unlimited runs, so that the start-up and warm-up both builds share do not decide) --results <tmp> ${plan.concurrencySource}; the tests' self-signed certificate trusted through NODE_EXTRA_CA_CERTS; the baseline is the same source built with bench/lib/reference-https-pool.mjs as its transport (bench/lib/reference-cli.mjs); rounds alternate which goes first`;
  recordHttps(ctx, phase, {
    measurement: `bulk add --from over https against a stub service: undici's Pool vs the node:https pool (same engine), ${count(rows)} rows`,
    goal: HTTPS_GOAL,
    runs: stub,
    rows,
    setup: `${common}; ${stubRounds} rounds; the service is bench/lib/https-stub.mjs, which answers as serve does but stores nothing, so the clients' own cost decides (the real service runs elsewhere)`,
  });
  recordHttps(ctx, phase, {
    measurement: `context: the same over https through a TLS front before serve, ${count(rows)} rows`,
    runs: serve,
    rows,
    setup: `${common}; ${serveRounds} rounds; a TLS front (bench/lib/tls-front.mjs) before a fresh serve on ${count(STORE_SIZE)} pets${storeDir ? ` in ${SHM} (memory: the shared disk's fdatasync does not decide)` : ""}, warmed by a ${ctx.settings.warmupSeconds} s POST load; serve, the front and the client share the 2 cores, which narrows any client's lead`,
  });
  ctx.detail("https", { stub, serve });
}

function recordHttps(ctx, phase, { measurement, goal, runs, rows, setup }) {
  const undici = runs["cli-https"];
  const pool = runs["pool-https"];
  const cpuPerRow = (r) => (r.cliCpuMs === undefined ? NaN : (r.cliCpuMs * 1000) / rows);
  const describe = (label, r) =>
    `${label} round ${r.round + 1}: ${(r.ms / 1000).toFixed(2)} s = ${Math.round(r.rowsPerSecond)} rows/s` +
    (r.cliCpuMs === undefined
      ? ""
      : `; CLI CPU ${Math.round(cpuPerRow(r))} us a row, peak RSS ${(r.cliMaxRssKiB / 1024).toFixed(0)} MiB`) +
    (r.serverCpu === undefined ? "" : `; serve CPU ${Math.round(r.serverCpu * 100)}%`);
  const problems = [...undici.map((r) => ["undici", r]), ...pool.map((r) => ["node:https", r])]
    .filter(([, r]) => r.problems.length > 0)
    .map(([label, r]) => `${label} round ${r.round + 1}: ${r.problems.join("; ")}`);
  const roundRatios = undici.map((r, i) => (r.rowsPerSecond / pool[i].rowsPerSecond).toFixed(2));
  const cpu = { undici: median(undici.map(cpuPerRow)), pool: median(pool.map(cpuPerRow)) };
  const row = measured({
    phase,
    measurement,
    figure: median(undici.map((r) => r.rowsPerSecond)),
    unit: "rows/s",
    baseline: median(pool.map((r) => r.rowsPerSecond)),
    baselineLabel: "node:https pool",
    goal,
    notes: [
      `${setup}; ratio per round ${roundRatios.join(", ")}`,
      `median CLI CPU a row (steadier than wall time on a shared machine): undici ${Math.round(cpu.undici)} us, node:https ${Math.round(cpu.pool)} us, ${(cpu.pool / cpu.undici).toFixed(2)}x`,
      ...undici.map((r) => describe("undici", r)),
      ...pool.map((r) => describe("node:https", r)),
      problems.length > 0
        ? `CHECK FAILED: ${problems.join("; ")}`
        : `check: every run exit 0, ${count(rows)} added outcomes with distinct ids`,
    ],
  });
  if (problems.length > 0) row.result = "fail";
  ctx.record(row);
}
