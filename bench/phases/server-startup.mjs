/**
 * Start-up of `petstore serve` on a big store: spawn to the base-URL line on stdout, and peak
 * resident memory once it answers. Beside it, as the reference, a script that only reads and
 * JSON.parses the same file, taken the same way; runs alternate between the two.
 */
import { request } from "../lib/http.mjs";
import { peakRssKiB, startProcess, stopProcess } from "../lib/processes.mjs";
import { measured, notAvailable } from "../lib/report.mjs";
import { authHeaders } from "../lib/serve.mjs";
import { median } from "../lib/stats.mjs";

export const name = "server-startup";
export const summary = "petstore serve start-up time and peak memory on a 1,000,000-pet file";

const TIME_GOAL = { on: "ratio", op: "<=", value: 1.5 };
const MEMORY_GOAL = { on: "figure", op: "<", value: 1024 * 1024 };

async function startReference(file) {
  const script = new URL("../fixtures/parse-file.mjs", import.meta.url).pathname;
  const started = await startProcess(process.execPath, [script, file], {
    readyPattern: /^ready/,
    timeoutMs: 60_000,
  });
  const peak = await peakRssKiB(started.child.pid);
  await stopProcess(started.child, 5_000);
  return { startupMs: started.readyMs, peakKiB: peak };
}

async function startServe(ctx, file) {
  const server = await ctx.serve.start(file, { timeoutMs: 60_000 });
  try {
    const page = await request("GET", `${server.baseUrl}/pets?limit=20`, {
      headers: authHeaders(),
    });
    if (page.status !== 200)
      throw new Error(`serve answered ${page.status} to its first GET /pets`);
    const peak = await server.peakRssKiB();
    return { startupMs: server.startupMs, peakKiB: peak };
  } finally {
    await server.stop(30_000);
  }
}

export async function run(ctx) {
  const { settings } = ctx;
  const size = settings.bigStore.toLocaleString("en-US");
  const timeMeasurement = `serve start-up to base-URL line (${size} pets)`;
  const memoryMeasurement = `serve peak RSS after start-up and one GET (${size} pets)`;
  const serveState = await ctx.serve.available();
  if (!serveState.ok) {
    const reason = serveState.reason;
    ctx.record(
      notAvailable({
        phase: name,
        measurement: timeMeasurement,
        unit: "ms",
        goal: TIME_GOAL,
        reason,
      }),
    );
    ctx.record(
      notAvailable({
        phase: name,
        measurement: memoryMeasurement,
        unit: "KiB",
        goal: MEMORY_GOAL,
        reason,
      }),
    );
    return;
  }

  const reference = [];
  const serve = [];
  for (let runIndex = 0; runIndex < settings.startupRuns; runIndex++) {
    const referenceFirst = runIndex % 2 === 0;
    for (const which of referenceFirst ? ["reference", "serve"] : ["serve", "reference"]) {
      const file = await ctx.pets.fresh(settings.bigStore);
      ctx.log(`start-up run ${runIndex + 1}: ${which}`);
      if (which === "reference") reference.push(await startReference(file));
      else serve.push(await startServe(ctx, file));
    }
  }
  const baselineLabel = "read + JSON.parse";
  const rounds = (runs, pick, unit) =>
    runs
      .map((r) =>
        unit === "ms" ? `${Math.round(pick(r))} ms` : `${Math.round(pick(r) / 1024)} MiB`,
      )
      .join(", ");
  ctx.record(
    measured({
      phase: name,
      measurement: timeMeasurement,
      figure: median(serve.map((r) => r.startupMs)),
      unit: "ms",
      baseline: median(reference.map((r) => r.startupMs)),
      baselineLabel,
      goal: TIME_GOAL,
      notes: [
        `serve runs ${rounds(serve, (r) => r.startupMs, "ms")}; reference ${rounds(reference, (r) => r.startupMs, "ms")}`,
      ],
    }),
  );
  ctx.record(
    measured({
      phase: name,
      measurement: memoryMeasurement,
      figure: median(serve.map((r) => r.peakKiB)),
      unit: "KiB",
      baseline: median(reference.map((r) => r.peakKiB)),
      baselineLabel,
      goal: MEMORY_GOAL,
      notes: [
        `VmHWM from /proc/<pid>/status; serve runs ${rounds(serve, (r) => r.peakKiB, "KiB")}`,
      ],
    }),
  );
  ctx.detail("runs", { serve, reference });
}
