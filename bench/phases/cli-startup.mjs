/**
 * Start-up of the one-shot CLI: `--version` paired against `node -e 0`, `list --json` against a
 * running serve paired against a plain node:http GET script of the same list (the goal: what
 * the CLI adds over the plainest client), and the peak memory of `list`; then, in runs of their
 * own, what `--jq` adds to `list --json` (loading jq and its first filter). Goals are on wall time;
 * CPU time (user + system) is shown beside it because it barely moves when other work shares
 * the two cores, while wall time does.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { measured, notAvailable } from "../lib/report.mjs";
import { canMeasureMaxRss, pairedResourceUse, pairedWallTimes, TIME_BIN } from "../lib/paired.mjs";
import { runToEnd } from "../lib/processes.mjs";
import { BENCH_KEY } from "../lib/serve.mjs";

export const name = "cli-startup";
export const summary =
  "petstore --version start-up vs node -e 0, list --json vs a node:http GET script, and memory";

const STORE_SIZE = 10_000;
const VERSION_GOAL = { on: "ratio", op: "<=", value: 1.15 };
const LIST_GOAL = { on: "ratio", op: "<=", value: 1.12 };
const MEMORY_GOAL = { on: "ratio", op: "<=", value: 1.5 };
const VERSION_MEASUREMENT = "CLI start-up: petstore --version vs node -e 0";
const LIST_MEASUREMENT = "CLI start-up: petstore list --json vs node:http GET script";
const MEMORY_MEASUREMENT = "CLI peak RSS: petstore list --json vs node -e 0";
const CPU_NOTE = "user + system CPU (bash time): steadier than wall time on a loaded machine";

function firstLine(text) {
  return text.trim().split("\n")[0] ?? "";
}

function failureNotes(result) {
  return result.failures > 0 ? [`${result.failures} run(s) of ${result.name} exited non-zero`] : [];
}

/** Wall time (the goal), then CPU time and max RSS of the same subjects; index 0 is the baseline. */
async function measureSubjects(ctx, subjects) {
  const { settings, tmp } = ctx;
  const wall = await pairedWallTimes(subjects, {
    rounds: settings.cliRuns,
    warmupRounds: settings.cliWarmups,
  });
  const resources = canMeasureMaxRss()
    ? await pairedResourceUse(subjects, {
        rounds: settings.memoryRuns,
        warmupRounds: 1,
        scratchDir: tmp,
      })
    : undefined;
  return { wall, resources };
}

function cpuRow(measurement, resources, index) {
  return measured({
    phase: name,
    measurement,
    figure: resources[index].cpu.median,
    unit: "ms",
    baseline: resources[0].cpu.median,
    baselineLabel: "node -e 0",
    notes: [CPU_NOTE],
  });
}

/** `list --jq .` against `list --json`: the cost of loading jq, compiling a filter and running it once. */
async function measureJq(ctx, subject, bin, env) {
  ctx.log("timing list --jq . against list --json: paired runs");
  const { wall, resources } = await measureSubjects(ctx, [
    subject("petstore list --json", [bin, "list", "--json"], env),
    subject("petstore list --jq .", [bin, "list", "--jq", "."], env),
  ]);
  const row = (measurement, figure, baseline, notes) =>
    measured({
      phase: name,
      measurement,
      figure,
      unit: "ms",
      baseline,
      baselineLabel: "list --json",
      notes,
    });
  ctx.record(
    row(
      "--jq: petstore list --jq . vs list --json",
      wall[1].median,
      wall[0].median,
      failureNotes(wall[1]),
    ),
  );
  if (resources) {
    ctx.record(
      row(
        "--jq CPU time: petstore list --jq . vs list --json",
        resources[1].cpu.median,
        resources[0].cpu.median,
        [CPU_NOTE],
      ),
    );
  }
  ctx.detail("jq", { wall, resources });
}

export async function run(ctx) {
  const { repoRoot, tmp } = ctx;
  const bin = join(repoRoot, "bin", "petstore.js");
  const configDir = join(tmp, "cli-config");
  await mkdir(configDir, { recursive: true });
  // An empty config dir: no stored profile on this machine leaks into the figures.
  const baseEnv = { ...process.env, PETSTORE_CONFIG_DIR: configDir, NO_COLOR: "1" };
  const subject = (label, args, env = baseEnv) => ({
    name: label,
    command: process.execPath,
    args,
    env,
    cwd: repoRoot,
  });

  const version = await runToEnd(process.execPath, [bin, "--version"], {
    cwd: repoRoot,
    env: baseEnv,
  });
  if (version.code === 0 && /\d+\.\d+\.\d+/.test(version.stdout)) {
    ctx.log(`timing --version: paired runs`);
    const { wall, resources } = await measureSubjects(ctx, [
      subject("node -e 0", ["-e", "0"]),
      subject("petstore --version", [bin, "--version"]),
    ]);
    ctx.record(
      measured({
        phase: name,
        measurement: VERSION_MEASUREMENT,
        figure: wall[1].median,
        unit: "ms",
        baseline: wall[0].median,
        baselineLabel: "node -e 0",
        goal: VERSION_GOAL,
        notes: failureNotes(wall[1]),
      }),
    );
    if (resources)
      ctx.record(cpuRow("CLI CPU time: petstore --version vs node -e 0", resources, 1));
    ctx.detail("version", { wall, resources });
  } else {
    ctx.record(
      notAvailable({
        phase: name,
        measurement: VERSION_MEASUREMENT,
        unit: "ms",
        goal: VERSION_GOAL,
        reason: `petstore --version failed: ${firstLine(version.stderr) || `exit ${version.code}`}`,
      }),
    );
  }

  const unavailable = (reason) => {
    ctx.record(
      notAvailable({
        phase: name,
        measurement: LIST_MEASUREMENT,
        unit: "ms",
        goal: LIST_GOAL,
        reason,
      }),
    );
    ctx.record(
      notAvailable({
        phase: name,
        measurement: MEMORY_MEASUREMENT,
        unit: "KiB",
        goal: MEMORY_GOAL,
        reason,
      }),
    );
  };
  const serveState = await ctx.serve.available();
  if (!serveState.ok) {
    unavailable(serveState.reason);
    return;
  }

  const server = await ctx.serve.start(await ctx.pets.fresh(STORE_SIZE));
  try {
    const env = { ...baseEnv, PETSTORE_BASE_URL: server.baseUrl, PETSTORE_API_KEY: BENCH_KEY };
    const check = await runToEnd(process.execPath, [bin, "list", "--json"], { cwd: repoRoot, env });
    let listed;
    try {
      listed = JSON.parse(check.stdout);
    } catch {
      listed = undefined;
    }
    if (check.code !== 0 || !Array.isArray(listed)) {
      const why = firstLine(check.stderr) || firstLine(check.stdout) || "no output";
      unavailable(`petstore list --json failed (exit ${check.code}): ${why}`);
      return;
    }

    ctx.log(`timing list --json: paired runs against ${server.baseUrl}`);
    const { wall, resources } = await measureSubjects(ctx, [
      subject("node -e 0", ["-e", "0"], env),
      subject("petstore list --json", [bin, "list", "--json"], env),
      subject("node:http GET script", [join(repoRoot, "bench", "fixtures", "http-get.mjs")], env),
    ]);
    const [zero, list, httpGet] = wall;
    ctx.record(
      measured({
        phase: name,
        measurement: LIST_MEASUREMENT,
        figure: list.median,
        unit: "ms",
        baseline: httpGet.median,
        baselineLabel: "GET script",
        goal: LIST_GOAL,
        notes: [
          `${listed.length} pets listed per run; both wait for the same server: what list adds over the plainest client`,
          ...failureNotes(list),
        ],
      }),
    );
    ctx.record(
      measured({
        phase: name,
        measurement: "CLI start-up: petstore list --json vs node -e 0",
        figure: list.median,
        unit: "ms",
        baseline: zero.median,
        baselineLabel: "node -e 0",
      }),
    );
    ctx.record(
      measured({
        phase: name,
        measurement: "reference: node:http GET script vs node -e 0",
        figure: httpGet.median,
        unit: "ms",
        baseline: zero.median,
        baselineLabel: "node -e 0",
        notes: ["expected about 1.13 (measurements guide)", ...failureNotes(httpGet)],
      }),
    );
    ctx.detail("list", { wall, resources });
    await measureJq(ctx, subject, bin, env);

    if (!resources) {
      ctx.record(
        notAvailable({
          phase: name,
          measurement: MEMORY_MEASUREMENT,
          unit: "KiB",
          goal: MEMORY_GOAL,
          reason: `${TIME_BIN} not found`,
        }),
      );
      return;
    }
    ctx.record(cpuRow("CLI CPU time: petstore list --json vs node -e 0", resources, 1));
    ctx.record(cpuRow("reference: node:http GET script CPU time vs node -e 0", resources, 2));
    ctx.record(
      measured({
        phase: name,
        measurement: MEMORY_MEASUREMENT,
        figure: resources[1].maxRss.median,
        unit: "KiB",
        baseline: resources[0].maxRss.median,
        baselineLabel: "node -e 0",
        goal: MEMORY_GOAL,
        notes: [`max RSS from ${TIME_BIN} -f %M`, ...failureNotes(resources[1].maxRss)],
      }),
    );
    ctx.record(
      measured({
        phase: name,
        measurement: "reference: node:http GET script peak RSS vs node -e 0",
        figure: resources[2].maxRss.median,
        unit: "KiB",
        baseline: resources[0].maxRss.median,
        baselineLabel: "node -e 0",
      }),
    );
  } finally {
    await server.stop();
  }
}
