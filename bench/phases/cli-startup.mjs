/**
 * Start-up of the one-shot CLI, paired against `node -e 0`: `--version`, `list --json` against a
 * running serve (beside a plain node:http GET script), and the peak memory of `list`.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { measured, notAvailable } from "../lib/report.mjs";
import { canMeasureMaxRss, pairedMaxRss, pairedWallTimes, TIME_BIN } from "../lib/paired.mjs";
import { runToEnd } from "../lib/processes.mjs";
import { BENCH_KEY } from "../lib/serve.mjs";

export const name = "cli-startup";
export const summary = "petstore --version and list --json start-up and memory vs node -e 0";

const STORE_SIZE = 10_000;
const VERSION_MEASUREMENT = "CLI start-up: petstore --version vs node -e 0";
const LIST_MEASUREMENT = "CLI start-up: petstore list --json vs node -e 0";
const HTTP_MEASUREMENT = "reference: node:http GET script vs node -e 0";
const MEMORY_MEASUREMENT = "CLI peak RSS: petstore list --json vs node -e 0";

function firstLine(text) {
  return text.trim().split("\n")[0] ?? "";
}

function failureNotes(result) {
  return result.failures > 0 ? [`${result.failures} run(s) of ${result.name} exited non-zero`] : [];
}

export async function run(ctx) {
  const { repoRoot, settings, tmp } = ctx;
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
  const rounds = { rounds: settings.cliRuns, warmupRounds: settings.cliWarmups };

  const version = await runToEnd(process.execPath, [bin, "--version"], {
    cwd: repoRoot,
    env: baseEnv,
  });
  if (version.code === 0 && /\d+\.\d+\.\d+/.test(version.stdout)) {
    ctx.log(`timing --version: ${settings.cliRuns} paired runs`);
    const [zero, cli] = await pairedWallTimes(
      [subject("node -e 0", ["-e", "0"]), subject("petstore --version", [bin, "--version"])],
      rounds,
    );
    ctx.record(
      measured({
        phase: name,
        measurement: VERSION_MEASUREMENT,
        figure: cli.median,
        unit: "ms",
        baseline: zero.median,
        baselineLabel: "node -e 0",
        goal: { on: "ratio", op: "<=", value: 1.15 },
        notes: failureNotes(cli),
      }),
    );
    ctx.detail("version", { zero, cli });
  } else {
    ctx.record(
      notAvailable({
        phase: name,
        measurement: VERSION_MEASUREMENT,
        unit: "ms",
        goal: { on: "ratio", op: "<=", value: 1.15 },
        reason: `petstore --version failed: ${firstLine(version.stderr) || `exit ${version.code}`}`,
      }),
    );
  }

  const listGoal = { on: "ratio", op: "<=", value: 1.3 };
  const memoryGoal = { on: "ratio", op: "<=", value: 1.5 };
  const unavailable = (reason) => {
    ctx.record(
      notAvailable({
        phase: name,
        measurement: LIST_MEASUREMENT,
        unit: "ms",
        goal: listGoal,
        reason,
      }),
    );
    ctx.record(
      notAvailable({
        phase: name,
        measurement: MEMORY_MEASUREMENT,
        unit: "KiB",
        goal: memoryGoal,
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
      unavailable(
        `petstore list --json failed (exit ${check.code}): ${firstLine(check.stderr) || firstLine(check.stdout) || "no output"}`,
      );
      return;
    }
    const subjects = [
      subject("node -e 0", ["-e", "0"], env),
      subject("petstore list --json", [bin, "list", "--json"], env),
      subject("node:http GET script", [join(repoRoot, "bench", "fixtures", "http-get.mjs")], env),
    ];

    ctx.log(`timing list --json: ${settings.cliRuns} paired runs against ${server.baseUrl}`);
    const [zero, list, httpGet] = await pairedWallTimes(subjects, rounds);
    ctx.record(
      measured({
        phase: name,
        measurement: LIST_MEASUREMENT,
        figure: list.median,
        unit: "ms",
        baseline: zero.median,
        baselineLabel: "node -e 0",
        goal: listGoal,
        notes: [`${listed.length} pets listed per run`, ...failureNotes(list)],
      }),
    );
    ctx.record(
      measured({
        phase: name,
        measurement: HTTP_MEASUREMENT,
        figure: httpGet.median,
        unit: "ms",
        baseline: zero.median,
        baselineLabel: "node -e 0",
        notes: ["expected about 1.13 (measurements guide)", ...failureNotes(httpGet)],
      }),
    );
    ctx.record(
      measured({
        phase: name,
        measurement: "CLI own cost: petstore list --json vs node:http GET script",
        figure: list.median,
        unit: "ms",
        baseline: httpGet.median,
        baselineLabel: "GET script",
        notes: ["both wait for the same server; what list adds over the plainest client"],
      }),
    );
    ctx.detail("list", { zero, list, httpGet });

    if (!canMeasureMaxRss()) {
      ctx.record(
        notAvailable({
          phase: name,
          measurement: MEMORY_MEASUREMENT,
          unit: "KiB",
          goal: memoryGoal,
          reason: `${TIME_BIN} not found`,
        }),
      );
      return;
    }
    ctx.log(`peak memory of list --json: ${settings.memoryRuns} paired runs`);
    const [zeroRss, listRss, httpRss] = await pairedMaxRss(subjects, {
      rounds: settings.memoryRuns,
      warmupRounds: 1,
      scratchDir: tmp,
    });
    ctx.record(
      measured({
        phase: name,
        measurement: MEMORY_MEASUREMENT,
        figure: listRss.median,
        unit: "KiB",
        baseline: zeroRss.median,
        baselineLabel: "node -e 0",
        goal: memoryGoal,
        notes: [`max RSS from ${TIME_BIN} -f %M`, ...failureNotes(listRss)],
      }),
    );
    ctx.record(
      measured({
        phase: name,
        measurement: "reference: node:http GET script peak RSS vs node -e 0",
        figure: httpRss.median,
        unit: "KiB",
        baseline: zeroRss.median,
        baselineLabel: "node -e 0",
      }),
    );
    ctx.detail("memory", { zeroRss, listRss, httpRss });
  } finally {
    await server.stop();
  }
}
