/**
 * Start-up of the standalone binary (dist/petstore-linux-x64, a Node 24 single executable
 * application with a V8 code cache), paired against this machine's `node -e 0` (Node 20, the
 * baseline of cli-startup) with the same budget: `--version`, `list --json` against a running
 * serve, and the peak memory of `list`. Beside them, as information: the binary's own runtime
 * (`node -e 0` of the Node 24 it is built on) and the bundled CLI run by Node 20, in the same
 * interleaved rounds.
 *
 * The binary is built (scripts/build-binary.mjs) when it is missing or older than dist/cli.cjs,
 * then copied into the temp dir and timed from there: `npm run build` replaces dist/ in one
 * rename, which would take a binary away in the middle of the phase.
 */
import { copyFile, mkdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { runtimeDir, TARGETS } from "../../scripts/binary-targets.mjs";
import { canMeasureMaxRss, pairedResourceUse, pairedWallTimes, TIME_BIN } from "../lib/paired.mjs";
import { runToEnd } from "../lib/processes.mjs";
import { measured, notAvailable } from "../lib/report.mjs";
import { BENCH_KEY } from "../lib/serve.mjs";

export const name = "binary-startup";
export const summary =
  "standalone binary --version and list --json start-up and memory vs node -e 0";

const STORE_SIZE = 10_000;
const TARGET = TARGETS.find((target) => target.name === "linux-x64");
const BASE_NODE_VERSION = TARGET.node;
const BUILD_TIMEOUT_MS = 300_000;
const VERSION_GOAL = { on: "ratio", op: "<=", value: 1.15 };
const LIST_GOAL = { on: "ratio", op: "<=", value: 1.3 };
const MEMORY_GOAL = { on: "ratio", op: "<=", value: 1.5 };
const VERSION_MEASUREMENT = "binary start-up: petstore-linux-x64 --version vs node -e 0";
const LIST_MEASUREMENT = "binary start-up: petstore-linux-x64 list --json vs node -e 0";
const MEMORY_MEASUREMENT = "binary peak RSS: petstore-linux-x64 list --json vs node -e 0";
const CPU_NOTE = "user + system CPU (bash time): steadier than wall time on a loaded machine";

function lastLine(text) {
  return text.trim().split("\n").pop() ?? "";
}

async function mtimeMs(path) {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * The binary, built when missing or older than dist/cli.cjs. Returns its path in dist/ and how
 * it was obtained, or `{ reason }` when it cannot be had.
 */
async function ensureBinary(ctx) {
  const { repoRoot } = ctx;
  const binary = join(repoRoot, "dist", "petstore-linux-x64");
  const cli = join(repoRoot, "dist", "cli.cjs");
  const [binaryTime, cliTime] = await Promise.all([mtimeMs(binary), mtimeMs(cli)]);
  if (binaryTime !== undefined && (cliTime === undefined || binaryTime >= cliTime)) {
    return { binary, how: "existing dist/petstore-linux-x64, newer than dist/cli.cjs" };
  }
  const why = binaryTime === undefined ? "missing" : "older than dist/cli.cjs";
  ctx.log(
    `dist/petstore-linux-x64 is ${why}: node scripts/build-binary.mjs linux-x64 (about 15 s)`,
  );
  const started = performance.now();
  const build = await runToEnd(
    process.execPath,
    [join(repoRoot, "scripts", "build-binary.mjs"), TARGET.name],
    { cwd: repoRoot, timeoutMs: BUILD_TIMEOUT_MS },
  );
  const seconds = (performance.now() - started) / 1000;
  if (build.code !== 0 || (await mtimeMs(binary)) === undefined) {
    const detail = lastLine(build.stderr) || lastLine(build.stdout) || `exit ${build.code}`;
    return { reason: `building the binary failed (exit ${build.code}): ${detail}` };
  }
  return { binary, how: `built by this run (${why}) in ${seconds.toFixed(1)} s` };
}

function failureNotes(result) {
  return result.failures > 0 ? [`${result.failures} run(s) of ${result.name} exited non-zero`] : [];
}

export async function run(ctx) {
  const { repoRoot, settings, tmp } = ctx;
  const allUnavailable = (reason) => {
    for (const [measurement, unit, goal] of [
      [VERSION_MEASUREMENT, "ms", VERSION_GOAL],
      [LIST_MEASUREMENT, "ms", LIST_GOAL],
      [MEMORY_MEASUREMENT, "KiB", MEMORY_GOAL],
    ]) {
      ctx.record(notAvailable({ phase: name, measurement, unit, goal, reason }));
    }
  };

  const obtained = await ensureBinary(ctx);
  if (obtained.reason) {
    allUnavailable(obtained.reason);
    return;
  }
  const dir = join(tmp, "binary");
  await mkdir(dir, { recursive: true });
  const binary = join(dir, "petstore-linux-x64");
  await copyFile(obtained.binary, binary);
  const sizeMiB = (await stat(binary)).size / 1024 / 1024;
  const node24 = join(runtimeDir(repoRoot, TARGET.runtime, BASE_NODE_VERSION), TARGET.executable);
  const hasNode24 = (await mtimeMs(node24)) !== undefined;
  const launcher = join(repoRoot, "bin", "petstore.js");

  const configDir = join(tmp, "binary-config");
  await mkdir(configDir, { recursive: true });
  // An empty config dir: no stored profile on this machine leaks into the figures.
  const baseEnv = { ...process.env, PETSTORE_CONFIG_DIR: configDir, NO_COLOR: "1" };

  const { version: expectedVersion } = JSON.parse(
    await readFile(join(repoRoot, "package.json"), "utf8"),
  );
  const version = await runToEnd(binary, ["--version"], { cwd: dir, env: baseEnv });
  if (version.code !== 0 || !version.stdout.includes(expectedVersion)) {
    allUnavailable(
      `petstore-linux-x64 --version answered ${JSON.stringify(version.stdout.trim().slice(0, 60))} (exit ${version.code}), expected ${expectedVersion}: ${lastLine(version.stderr)}`,
    );
    return;
  }
  const notes = [
    `${obtained.how}; ${sizeMiB.toFixed(0)} MiB on Node ${BASE_NODE_VERSION}, timed from a copy in the temp dir`,
  ];

  const serveState = await ctx.serve.available();
  const server = serveState.ok
    ? await ctx.serve.start(await ctx.pets.fresh(STORE_SIZE))
    : undefined;
  try {
    const env = server
      ? { ...baseEnv, PETSTORE_BASE_URL: server.baseUrl, PETSTORE_API_KEY: BENCH_KEY }
      : baseEnv;
    let listReason = serveState.ok ? undefined : serveState.reason;
    let listedCount;
    if (server) {
      const check = await runToEnd(binary, ["list", "--json"], { cwd: dir, env });
      try {
        listedCount = JSON.parse(check.stdout).length;
      } catch {
        listedCount = undefined;
      }
      if (check.code !== 0 || !Number.isInteger(listedCount)) {
        const why = lastLine(check.stderr) || lastLine(check.stdout) || "no output";
        listReason = `petstore-linux-x64 list --json failed (exit ${check.code}): ${why}`;
      }
    }

    const subject = (label, command, args) => ({ name: label, command, args, env, cwd: dir });
    const subjects = [
      subject("node -e 0", process.execPath, ["-e", "0"]),
      subject("binary --version", binary, ["--version"]),
      subject("node bin/petstore.js --version", process.execPath, [launcher, "--version"]),
    ];
    if (hasNode24) subjects.push(subject(`node ${BASE_NODE_VERSION} -e 0`, node24, ["-e", "0"]));
    if (listReason === undefined) {
      subjects.push(
        subject("binary list --json", binary, ["list", "--json"]),
        subject("node bin/petstore.js list --json", process.execPath, [launcher, "list", "--json"]),
      );
    }
    const at = (label) => subjects.findIndex((s) => s.name === label);
    const rounds = settings.cliRuns;
    ctx.log(
      `timing ${subjects.map((s) => s.name).join(", ")}: ${rounds} interleaved rounds` +
        (server ? ` against ${server.baseUrl}` : ""),
    );
    const wall = await pairedWallTimes(subjects, {
      rounds,
      warmupRounds: settings.cliWarmups,
    });
    const resources = canMeasureMaxRss()
      ? await pairedResourceUse(subjects, {
          rounds: settings.memoryRuns,
          warmupRounds: 1,
          scratchDir: tmp,
        })
      : undefined;
    ctx.detail("wall", wall);
    ctx.detail("resources", resources);
    ctx.detail("binary", { how: obtained.how, sizeBytes: Math.round(sizeMiB * 1024 * 1024) });

    const zero = wall[0];
    const row = (measurement, index, baseIndex, extra = {}) =>
      measured({
        phase: name,
        measurement,
        figure: wall[index].median,
        unit: "ms",
        baseline: wall[baseIndex].median,
        baselineLabel: wall[baseIndex].name,
        ...extra,
        notes: [...(extra.notes ?? []), ...failureNotes(wall[index])],
      });
    const spreadNote = (index) =>
      `${wall[index].name}: median of ${wall[index].samples.length}, spread ${(wall[index].spread * 100).toFixed(0)}%; node -e 0 spread ${(zero.spread * 100).toFixed(0)}%`;

    ctx.record(
      row(VERSION_MEASUREMENT, at("binary --version"), 0, {
        goal: VERSION_GOAL,
        notes: [...notes, spreadNote(at("binary --version"))],
      }),
    );
    if (listReason === undefined) {
      ctx.record(
        row(LIST_MEASUREMENT, at("binary list --json"), 0, {
          goal: LIST_GOAL,
          notes: [`${listedCount} pets listed per run`, spreadNote(at("binary list --json"))],
        }),
      );
    } else {
      ctx.record(
        notAvailable({
          phase: name,
          measurement: LIST_MEASUREMENT,
          unit: "ms",
          goal: LIST_GOAL,
          reason: listReason,
        }),
      );
    }
    if (hasNode24) {
      const runtimeNote = [`the binary's own runtime: ${node24.slice(repoRoot.length)}`];
      ctx.record(
        row(
          `info: binary --version vs node ${BASE_NODE_VERSION} -e 0`,
          at("binary --version"),
          at(`node ${BASE_NODE_VERSION} -e 0`),
          { notes: runtimeNote },
        ),
      );
      if (listReason === undefined) {
        ctx.record(
          row(
            `info: binary list --json vs node ${BASE_NODE_VERSION} -e 0`,
            at("binary list --json"),
            at(`node ${BASE_NODE_VERSION} -e 0`),
            { notes: runtimeNote },
          ),
        );
      }
      ctx.record(
        row(
          `info: node ${BASE_NODE_VERSION} -e 0 vs node -e 0`,
          at(`node ${BASE_NODE_VERSION} -e 0`),
          0,
          {
            notes: ["measurements guide: Node 24.21 starts in about 0.37 of Node 20's time"],
          },
        ),
      );
    }
    ctx.record(
      row(
        "info: binary --version vs node bin/petstore.js --version",
        at("binary --version"),
        at("node bin/petstore.js --version"),
      ),
    );
    if (listReason === undefined) {
      ctx.record(
        row(
          "info: binary list --json vs node bin/petstore.js list --json",
          at("binary list --json"),
          at("node bin/petstore.js list --json"),
        ),
      );
    }

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
    const cpuRow = (measurement, index) =>
      measured({
        phase: name,
        measurement,
        figure: resources[index].cpu.median,
        unit: "ms",
        baseline: resources[0].cpu.median,
        baselineLabel: "node -e 0",
        notes: [CPU_NOTE],
      });
    const rssRow = (measurement, index, baseIndex, extra = {}) =>
      measured({
        phase: name,
        measurement,
        figure: resources[index].maxRss.median,
        unit: "KiB",
        baseline: resources[baseIndex].maxRss.median,
        baselineLabel: subjects[baseIndex].name,
        ...extra,
        notes: [
          `max RSS from ${TIME_BIN} -f %M`,
          ...(extra.notes ?? []),
          ...failureNotes(resources[index].maxRss),
        ],
      });
    ctx.record(cpuRow("binary CPU time: --version vs node -e 0", at("binary --version")));
    if (listReason === undefined) {
      ctx.record(cpuRow("binary CPU time: list --json vs node -e 0", at("binary list --json")));
      ctx.record(
        rssRow(MEMORY_MEASUREMENT, at("binary list --json"), 0, {
          goal: MEMORY_GOAL,
          notes: [
            `medians: ${subjects.map((s, i) => `${s.name} ${(resources[i].maxRss.median / 1024).toFixed(1)} MiB`).join(", ")}`,
          ],
        }),
      );
      if (hasNode24) {
        ctx.record(
          rssRow(
            `info: binary list --json peak RSS vs node ${BASE_NODE_VERSION} -e 0`,
            at("binary list --json"),
            at(`node ${BASE_NODE_VERSION} -e 0`),
          ),
        );
      }
    } else {
      ctx.record(
        notAvailable({
          phase: name,
          measurement: MEMORY_MEASUREMENT,
          unit: "KiB",
          goal: MEMORY_GOAL,
          reason: listReason,
        }),
      );
    }
    ctx.record(rssRow("info: binary --version peak RSS vs node -e 0", at("binary --version"), 0));
    // The same bytes run from dist/ (as the build wrote them) can show a different RSS: mapped
    // file pages count, and how the page cache holds them depends on how the file was written.
    const asBuilt = await pairedResourceUse(
      [
        subject("binary --version (temp copy)", binary, ["--version"]),
        subject("binary --version (dist/, as built)", obtained.binary, ["--version"]),
      ],
      { rounds: 3, warmupRounds: 1, scratchDir: tmp },
    );
    if (asBuilt[1].maxRss.samples.length > 0) {
      ctx.record(
        measured({
          phase: name,
          measurement: "info: binary --version peak RSS, run from dist/ vs from the temp copy",
          figure: asBuilt[1].maxRss.median,
          unit: "KiB",
          baseline: asBuilt[0].maxRss.median,
          baselineLabel: "temp copy",
          notes: [
            `max RSS from ${TIME_BIN} -f %M`,
            "identical bytes; the file as the build wrote it (copied, postject injecting in place, then renamed) maps more resident pages than a plain copy (page cache), so the goal rows use the copy, as a downloaded file would be",
          ],
        }),
      );
    }
    if (asBuilt[1].maxRss.samples.length === 0) {
      ctx.log(
        "dist/petstore-linux-x64 did not run (dist/ rebuilt meanwhile?): no as-built RSS row",
      );
    }
    ctx.detail("asBuiltRss", asBuilt);
    if (hasNode24) {
      ctx.record(
        rssRow(
          `info: node ${BASE_NODE_VERSION} -e 0 peak RSS vs node -e 0`,
          at(`node ${BASE_NODE_VERSION} -e 0`),
          0,
        ),
      );
    }
  } finally {
    await server?.stop();
  }
}
