/**
 * What the request journal costs the read path: list throughput of `petstore serve` with the
 * journal at its default size (every request recorded, the ring full) against the same serve
 * with `--journal-size 0`, on copies of the same 10,000-pet file, in alternating rounds.
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

export async function run(ctx) {
  const { settings, tmp } = ctx;
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
  const on = await ctx.serve.start(await ctx.pets.fresh(STORE_SIZE));
  let off;
  try {
    off = await ctx.serve.start(await ctx.pets.fresh(STORE_SIZE), {
      extra: ["--journal-size", "0"],
    });
    ctx.log(`load tool: ${describeLoadTool(CONNECTIONS)}`);
    const targets = [on, off];
    for (const target of targets) await load(target, settings.warmupSeconds, tmp);
    const samples = new Map(targets.map((target) => [target, []]));
    for (let round = 0; round < settings.readRounds; round++) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) {
        ctx.log(`round ${round + 1}: list with the journal ${target === on ? "on" : "off"}`);
        samples.get(target).push(await load(target, settings.loadSeconds, tmp));
      }
    }
    const [heldOn, heldOff] = [await journalled(on), await journalled(off)];
    if (heldOn !== DEFAULT_JOURNAL_SIZE || heldOff !== 0) {
      throw new Error(
        `the journals hold ${heldOn} and ${heldOff} requests; expected ${DEFAULT_JOURNAL_SIZE} and 0`,
      );
    }
    const onRuns = samples.get(on);
    const offRuns = samples.get(off);
    const ratios = onRuns.map((run, i) => (run.rps / offRuns[i].rps).toFixed(2));
    const errors = [...onRuns, ...offRuns].reduce((sum, run) => sum + run.non2xx + run.errors, 0);
    ctx.record(
      measured({
        phase: name,
        measurement: MEASUREMENT,
        figure: median(onRuns.map((run) => run.rps)),
        unit: "req/s",
        baseline: median(offRuns.map((run) => run.rps)),
        baselineLabel: "journal off",
        goal: GOAL,
        notes: [
          `journal on/off ratio per round ${ratios.join(", ")}; the on journal held ${heldOn} requests after the load`,
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
        figure: median(onRuns.map((run) => run.cpuUsPerRequest)),
        unit: "us",
        baseline: median(offRuns.map((run) => run.cpuUsPerRequest)),
        baselineLabel: "journal off",
        notes: ["server CPU time (/proc) over requests: steadier than req/s on a shared machine"],
      }),
    );
    ctx.detail("list", {
      on: onRuns,
      off: offRuns,
      onCommand: on.commandLine,
      offCommand: off.commandLine,
    });
  } finally {
    await off?.stop();
    await on.stop();
  }
}
