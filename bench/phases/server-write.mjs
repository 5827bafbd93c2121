/**
 * Durable POST /v1/pets throughput at three store sizes. All three servers run at once and the
 * rounds alternate between them, so the 1,000-vs-1,000,000 ratio is a paired comparison.
 * Every load is bracketed by two single POSTs: the ids they get tell how many pets the load
 * really created, which must equal the 2xx count the load tool saw.
 */
import { describeLoadTool } from "../lib/load.mjs";
import { runToEnd } from "../lib/processes.mjs";
import { measured, notAvailable } from "../lib/report.mjs";
import { median } from "../lib/stats.mjs";
import { postLoad } from "../lib/writes.mjs";

export const name = "server-write";
export const summary = "durable POST /v1/pets req/s at 1k, 10k and 1M pets";

const CONNECTIONS = 32;
const RATE_GOAL = { on: "figure", op: ">=", value: 2500 };
const SCALING_GOAL = { on: "ratio", op: ">=", value: 0.85 };

const count = (n) => n.toLocaleString("en-US");

/** Append + fdatasync rounds per second, one at a time: what this disk allows right now. */
async function syncRate(directory, seconds) {
  const script = new URL("../fixtures/sync-rate.mjs", import.meta.url).pathname;
  const run = await runToEnd(process.execPath, [script, directory, String(seconds)]);
  if (run.code !== 0) throw new Error(`sync-rate reference failed: ${run.stderr.trim()}`);
  return JSON.parse(run.stdout).perSecond;
}

export async function run(ctx) {
  const { settings, tmp } = ctx;
  const sizes = [1_000, 10_000, settings.bigStore];
  const measurements = {
    rate: `serve durable POST /v1/pets (${count(10_000)} pets at start)`,
    small: `serve durable POST /v1/pets (${count(1_000)} pets at start)`,
    scaling: `serve durable POST at ${count(settings.bigStore)} pets vs at ${count(1_000)}`,
  };
  const serveState = await ctx.serve.available();
  if (!serveState.ok) {
    const reason = serveState.reason;
    ctx.record(
      notAvailable({
        phase: name,
        measurement: measurements.rate,
        unit: "req/s",
        goal: RATE_GOAL,
        reason,
      }),
    );
    ctx.record(
      notAvailable({
        phase: name,
        measurement: measurements.scaling,
        unit: "req/s",
        goal: SCALING_GOAL,
        reason,
      }),
    );
    return;
  }

  const servers = new Map();
  try {
    for (const size of sizes) {
      ctx.log(`starting serve on ${count(size)} pets`);
      servers.set(size, await ctx.serve.start(await ctx.pets.fresh(size)));
    }
    ctx.log(`load tool: ${describeLoadTool(CONNECTIONS)}`);
    const load = (size, seconds) =>
      postLoad(servers.get(size), { seconds, connections: CONNECTIONS, scratchDir: tmp });
    for (const size of sizes) await load(size, settings.warmupSeconds);
    const runs = new Map(sizes.map((size) => [size, []]));
    const syncRates = [];
    for (let round = 0; round < settings.writeRounds; round++) {
      const order = round % 2 === 0 ? sizes : [...sizes].reverse();
      ctx.log(`round ${round + 1}: append + fdatasync reference`);
      syncRates.push(await syncRate(tmp, Math.min(2, settings.loadSeconds)));
      for (const size of order) {
        ctx.log(`round ${round + 1}: POST on ${count(size)} pets`);
        runs.get(size).push(await load(size, settings.loadSeconds));
      }
    }

    const summaryOf = (size) => {
      const sizeRuns = runs.get(size);
      const notes = [
        `${count(size)} pets: p50 ${median(sizeRuns.map((r) => r.p50Ms))} ms, p99 ${median(sizeRuns.map((r) => r.p99Ms))} ms, server CPU ${Math.round(median(sizeRuns.map((r) => r.serverCpu)) * 100)}% (${Math.round(median(sizeRuns.map((r) => r.cpuUsPerRequest)))} us a request); rounds ${sizeRuns.map((r) => Math.round(r.rps)).join(", ")} req/s`,
      ];
      const non2xx = sizeRuns.reduce((sum, r) => sum + r.non2xx, 0);
      const errors = sizeRuns.reduce((sum, r) => sum + r.errors, 0);
      if (non2xx + errors > 0) {
        const codes = sizeRuns.map((r) => JSON.stringify(r.statusCodes ?? {})).join(" ");
        notes.push(
          `${count(size)} pets: ${non2xx} non-2xx responses, ${errors} socket errors ${codes}`,
        );
      }
      // The tool stops with up to one request in flight per connection: created, never counted.
      const mismatched = sizeRuns.filter((r) => r.created < r.ok || r.created > r.ok + CONNECTIONS);
      if (mismatched.length > 0) {
        notes.push(
          `${count(size)} pets: ids advanced by ${mismatched.map((r) => r.created).join(", ")} but the load tool counted ${mismatched.map((r) => r.ok).join(", ")} 2xx (expected up to ${CONNECTIONS} more, in flight at the end)`,
        );
      }
      return { rps: median(sizeRuns.map((r) => r.rps)), notes };
    };
    const small = summaryOf(1_000);
    const medium = summaryOf(10_000);
    const big = summaryOf(settings.bigStore);
    ctx.record(
      measured({
        phase: name,
        measurement: measurements.rate,
        figure: medium.rps,
        unit: "req/s",
        baseline: median(syncRates),
        baselineLabel: "fdatasync/s, one at a time",
        goal: RATE_GOAL,
        notes: [
          ...medium.notes,
          "201s only; a store grows by the pets the load creates",
          `baseline: one append + fdatasync at a time on the same disk, ${syncRates.map((r) => Math.round(r)).join(", ")} per second; a ratio above 1 means group commit shares syncs`,
        ],
      }),
    );
    ctx.record(
      measured({
        phase: name,
        measurement: measurements.small,
        figure: small.rps,
        unit: "req/s",
        notes: small.notes,
      }),
    );
    ctx.record(
      measured({
        phase: name,
        measurement: measurements.scaling,
        figure: big.rps,
        unit: "req/s",
        baseline: small.rps,
        baselineLabel: `${count(1_000)} pets`,
        goal: SCALING_GOAL,
        notes: big.notes,
      }),
    );

    const bigServer = servers.get(settings.bigStore);
    const peak = await bigServer.peakRssKiB();
    const stopped = await bigServer.stop(30_000);
    servers.delete(settings.bigStore);
    ctx.record(
      measured({
        phase: name,
        measurement: `serve peak RSS after the POST loads (${count(settings.bigStore)} pets)`,
        figure: peak ?? null,
        unit: "KiB",
      }),
    );
    ctx.record(
      measured({
        phase: name,
        measurement: `serve stop after the POST loads, SIGTERM to exit (${count(settings.bigStore)} pets)`,
        figure: stopped.ms,
        unit: "ms",
        notes: stopped.killed
          ? ["did not exit within 30 s of SIGTERM: killed"]
          : [`exit ${stopped.signal ?? `code ${stopped.code}`}`],
      }),
    );
    ctx.detail("runs", Object.fromEntries([...runs].map(([size, sizeRuns]) => [size, sizeRuns])));
    ctx.detail("syncRates", syncRates);
  } finally {
    await Promise.all([...servers.values()].map((server) => server.stop()));
  }
}
