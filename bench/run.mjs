#!/usr/bin/env node
/**
 * `npm run bench`: speed and memory goals as ratios against baselines measured in the same run.
 * Usage: node bench/run.mjs [--only <phase>[,<phase>]] [--quick] [--list]
 * BENCH_QUICK=1 is --quick (a short smoke run); BENCH_LOAD_TOOL=wrk|autocannon forces the tool.
 * Prints a table, writes .bench/results.json, and exits 0 even when a goal is missed.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { describeLoadTool, stopAllLoads } from "./lib/load.mjs";
import { createPetFiles } from "./lib/pets.mjs";
import { stopAll } from "./lib/processes.mjs";
import { phaseError, renderTable, renderVerdict } from "./lib/report.mjs";
import { createServe } from "./lib/serve.mjs";
import * as binaryStartup from "./phases/binary-startup.mjs";
import * as bulkImport from "./phases/bulk-import.mjs";
import * as cliStartup from "./phases/cli-startup.mjs";
import * as fuzzLatency from "./phases/fuzz-latency.mjs";
import * as journalCost from "./phases/journal-cost.mjs";
import * as journalRead from "./phases/journal-read.mjs";
import * as keyringRead from "./phases/keyring-read.mjs";
import * as serverRead from "./phases/server-read.mjs";
import * as serverWrite from "./phases/server-write.mjs";
import * as serverStartup from "./phases/server-startup.mjs";

const PHASES = [
  cliStartup,
  binaryStartup,
  keyringRead,
  serverRead,
  journalCost,
  journalRead,
  fuzzLatency,
  serverWrite,
  serverStartup,
  bulkImport,
];

const FULL = {
  loadSeconds: 5,
  warmupSeconds: 1,
  readRounds: 3,
  writeRounds: 2,
  bigStore: 1_000_000,
  startupRuns: 3,
  cliRuns: 15,
  cliWarmups: 2,
  memoryRuns: 10,
  bulkRows: 10_000,
  bulkRounds: 2,
  freeLeadSeconds: 20,
};
const QUICK = {
  loadSeconds: 1,
  warmupSeconds: 1,
  readRounds: 1,
  writeRounds: 1,
  bigStore: 100_000,
  startupRuns: 1,
  cliRuns: 3,
  cliWarmups: 1,
  memoryRuns: 3,
  bulkRows: 2_000,
  bulkRounds: 1,
  freeLeadSeconds: 5,
};

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

function parseCommandLine() {
  const { values } = parseArgs({
    options: {
      only: { type: "string", multiple: true },
      quick: { type: "boolean", default: false },
      list: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const names = PHASES.map((phase) => phase.name);
  const only = (values.only ?? []).flatMap((value) => value.split(",")).filter(Boolean);
  const unknown = only.filter((phaseName) => !names.includes(phaseName));
  if (unknown.length > 0) {
    throw new Error(`unknown phase ${unknown.join(", ")}; phases: ${names.join(", ")}`);
  }
  return {
    help: values.help,
    list: values.list,
    quick: values.quick || process.env.BENCH_QUICK === "1",
    phases: only.length > 0 ? PHASES.filter((phase) => only.includes(phase.name)) : PHASES,
  };
}

function usage() {
  return [
    "usage: node bench/run.mjs [--only <phase>[,<phase>]] [--quick] [--list]",
    "phases:",
    ...PHASES.map((phase) => `  ${phase.name.padEnd(16)} ${phase.summary}`),
    "BENCH_QUICK=1 is --quick; BENCH_LOAD_TOOL=wrk|autocannon forces the load tool.",
  ].join("\n");
}

async function main() {
  let options;
  try {
    options = parseCommandLine();
  } catch (error) {
    console.error(`bench: ${error.message}\n${usage()}`);
    return 2;
  }
  if (options.help || options.list) {
    console.log(usage());
    return 0;
  }

  const settings = options.quick ? QUICK : FULL;
  const tmp = await mkdtemp(join(tmpdir(), "petstore-bench-"));
  const rows = [];
  const details = {};
  const startedAt = new Date();
  const loadAtStart = loadavg();
  let cleanedUp = false;
  const cleanUp = async () => {
    if (cleanedUp) return;
    cleanedUp = true;
    stopAllLoads();
    await stopAll();
    await rm(tmp, { recursive: true, force: true });
  };
  const onSignal = (signal) => {
    console.error(`\nbench: ${signal}: stopping every process it started and removing ${tmp}`);
    void cleanUp().finally(() => process.exit(130));
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.once(signal, onSignal);

  const pets = createPetFiles(tmp);
  const ctx = {
    repoRoot,
    settings,
    tmp,
    pets,
    serve: createServe({ repoRoot, pets }),
    log: (message) => console.error(`bench: ${message}`),
  };
  console.error(
    `bench: ${options.quick ? "QUICK smoke run (figures not meaningful)" : "full run"}; ` +
      `phases ${options.phases.map((phase) => phase.name).join(", ")}; temp dir ${tmp}`,
  );
  try {
    for (const phase of options.phases) {
      console.error(`bench: phase ${phase.name}: ${phase.summary}`);
      const phaseStarted = performance.now();
      const phaseCtx = {
        ...ctx,
        record: (row) => rows.push(row),
        detail: (key, value) => ((details[phase.name] ??= {})[key] = value),
      };
      try {
        await phase.run(phaseCtx);
      } catch (error) {
        rows.push(phaseError(phase.name, error));
      }
      console.error(
        `bench: phase ${phase.name} took ${((performance.now() - phaseStarted) / 1000).toFixed(1)} s`,
      );
    }
  } finally {
    await cleanUp();
  }

  const loadTool = describeLoadTool(32);
  console.log("");
  console.log(
    `petstore bench, ${options.quick ? "QUICK (smoke run, not meaningful)" : "full"}; Node ${process.version}; ${cpus().length} cores`,
  );
  console.log(
    `load tool: ${loadTool}; load average at start ${loadAtStart.map((n) => n.toFixed(2)).join(" ")}`,
  );
  console.log("");
  console.log(renderTable(rows));
  console.log("");
  console.log(renderVerdict(rows));

  const resultsDir = join(repoRoot, ".bench");
  await mkdir(resultsDir, { recursive: true });
  const results = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    quick: options.quick,
    settings,
    node: process.version,
    cores: cpus().length,
    loadAverage: { start: loadAtStart, end: loadavg() },
    loadTool,
    phases: options.phases.map((phase) => phase.name),
    rows,
    details,
  };
  await writeFile(join(resultsDir, "results.json"), JSON.stringify(results, null, 2) + "\n");
  console.log(`results: ${join(".bench", "results.json")}`);
  return 0;
}

process.exitCode = await main();
