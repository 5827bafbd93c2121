/**
 * What the request journal costs the read path: list throughput of `petstore serve` with the
 * journal at its default size (every request recorded, the ring full) against the same serve
 * with `--journal-size 0`, on copies of the same 10,000-pet file. Each round starts a fresh pair
 * (in alternating order, each warmed up) and loads them in alternating order, so neither gets
 * the better core or the quieter moment every time; figures are medians over the rounds.
 */
import { request } from "../lib/http.mjs";
import { describeLoadTool, runLoad } from "../lib/load.mjs";
import { cpuSeconds } from "../lib/processes.mjs";
import { measured, notAvailable } from "../lib/report.mjs";
import { authHeaders } from "../lib/serve.mjs";
import { median } from "../lib/stats.mjs";

export const name = "journal-cost";
export const summary =
  "GET list req/s with the request journal at its default size vs --journal-size 0";

const STORE_SIZE = 10_000;
const CONNECTIONS = 32;
const LIST_QUERY = "/pets?status=available&limit=20";
const DEFAULT_JOURNAL_SIZE = 1000;
/** The journal may cost at most 10 % of list throughput. */
const GOAL = { on: "ratio", op: ">=", value: 0.9 };
const MEASUREMENT = `serve GET list, request journal on (${DEFAULT_JOURNAL_SIZE.toLocaleString("en-US")}) vs --journal-size 0`;
const SETUPS = { on: [], off: ["--journal-size", "0"] };

async function load(target, seconds, scratchDir) {
  const before = await cpuSeconds(target.pid);
  const result = await runLoad({
    origin: target.origin,
    path: `${target.basePath}${LIST_QUERY}`,
    headers: authHeaders(),
    connections: CONNECTIONS,
    seconds,
    scratchDir,
  });
  const cpu = (await cpuSeconds(target.pid)) - before;
  return { ...result, cpuUsPerRequest: (cpu * 1e6) / Math.max(1, result.requests) };
}

/** How many requests the control plane says it holds: the journal must really be on (and off). */
async function journalled(target) {
  const answer = await request("GET", `${target.origin}/__admin/requests?path=/v1/pets`);
  if (answer.status !== 200) throw new Error(`GET /__admin/requests answered ${answer.status}`);
  return JSON.parse(answer.body.toString("utf8")).requests.length;
}

/** One round: a fresh pair, warmed up, loaded in the given order; the samples go to `samples`. */
async function round(ctx, order, samples) {
  const { settings, tmp } = ctx;
  const started = {};
  try {
    for (const which of order) {
      const file = await ctx.pets.fresh(STORE_SIZE);
      started[which] = await ctx.serve.start(file, { extra: SETUPS[which] });
    }
    for (const which of order) await load(started[which], settings.warmupSeconds, tmp);
    for (const which of order) {
      ctx.log(`list with the journal ${which}`);
      samples[which].push(await load(started[which], settings.loadSeconds, tmp));
    }
    const held = { on: await journalled(started.on), off: await journalled(started.off) };
    if (held.on !== DEFAULT_JOURNAL_SIZE || held.off !== 0) {
      throw new Error(
        `the journals hold ${held.on} and ${held.off} requests; expected ${DEFAULT_JOURNAL_SIZE} and 0`,
      );
    }
  } finally {
    await started.on?.stop();
    await started.off?.stop();
  }
}

export async function run(ctx) {
  const serveState = await ctx.serve.available();
  if (!serveState.ok) {
    ctx.record(
      notAvailable({
        phase: name,
        measurement: MEASUREMENT,
        unit: "req/s",
        goal: GOAL,
        reason: serveState.reason,
      }),
    );
    return;
  }
  ctx.log(`load tool: ${describeLoadTool(CONNECTIONS)}`);
  const samples = { on: [], off: [] };
  const rounds = ctx.settings.readRounds + 2;
  for (let i = 0; i < rounds; i++) {
    ctx.log(`round ${i + 1} of ${rounds}`);
    await round(ctx, i % 2 === 0 ? ["on", "off"] : ["off", "on"], samples);
  }
  const { on, off } = samples;
  const ratios = on.map((sample, i) => (sample.rps / off[i].rps).toFixed(2));
  const errors = [...on, ...off].reduce((sum, sample) => sum + sample.non2xx + sample.errors, 0);
  ctx.record(
    measured({
      phase: name,
      measurement: MEASUREMENT,
      figure: median(on.map((sample) => sample.rps)),
      unit: "req/s",
      baseline: median(off.map((sample) => sample.rps)),
      baselineLabel: "journal off",
      goal: GOAL,
      notes: [
        `journal on/off ratio per round ${ratios.join(", ")}; each round a fresh pair of serves, the journal checked full (${DEFAULT_JOURNAL_SIZE}) and empty after it`,
        ...(errors > 0
          ? [`${errors} non-2xx responses or socket errors (not counted in req/s)`]
          : []),
      ],
    }),
  );
  ctx.record(
    measured({
      phase: name,
      measurement: "serve CPU per list request, journal on vs off",
      figure: median(on.map((sample) => sample.cpuUsPerRequest)),
      unit: "us",
      baseline: median(off.map((sample) => sample.cpuUsPerRequest)),
      baselineLabel: "journal off",
      notes: ["server CPU time (/proc) over requests: steadier than req/s on a shared machine"],
    }),
  );
  ctx.detail("list", samples);
}
