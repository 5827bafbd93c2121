/**
 * Timed runs of a bulk client for the bulk-import phase: the CLI as a user runs it (or the
 * reference client, or the CLI built with the node:https pool) against a fresh serve, a TLS front
 * before serve, or the https stub, and what the results file and serve's file say afterwards.
 */
import { createWriteStream, existsSync } from "node:fs";
import { copyFile, mkdtemp, readFile } from "node:fs/promises";
import { once } from "node:events";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TIME_BIN } from "./paired.mjs";
import { cpuSeconds, runToEnd, startProcess, stopProcess } from "./processes.mjs";
import { BENCH_KEY } from "./serve.mjs";
import { CERT_FILE } from "./tls-front.mjs";
import { createOne, postLoad } from "./writes.mjs";

/** Pets in every serve a bulk run goes to. */
export const STORE_SIZE = 10_000;
const REFERENCE_CLIENT = fileURLToPath(new URL("./reference-bulk-client.mjs", import.meta.url));
const TLS_FRONT = fileURLToPath(new URL("./tls-front.mjs", import.meta.url));
const HTTPS_STUB = fileURLToPath(new URL("./https-stub.mjs", import.meta.url));
/** Memory-backed: serve's fdatasync costs nothing there, so the disk does not decide a ratio. */
export const SHM = "/dev/shm";

export const count = (n) => n.toLocaleString("en-US");
const lastLine = (text) => text.trim().split("\n").pop() ?? "";

/** The run's environment: no PETSTORE_* from the harness's own, an empty config dir. */
export function cleanEnv(configDir, more) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith("PETSTORE_")),
  );
  return { ...env, PETSTORE_CONFIG_DIR: configDir, NO_COLOR: "1", ...more };
}

/** `rows` valid pets as NDJSON, one NewPet a line. */
export async function writeRows(path, rows, prefix) {
  const statuses = ["available", "pending", "sold"];
  const out = createWriteStream(path);
  for (let first = 1; first <= rows; first += 1_000) {
    let chunk = "";
    for (let i = first; i <= Math.min(rows, first + 999); i++) {
      chunk += `{"name":"${prefix} ${i}","categoryId":${(i % 7) + 1},"status":"${statuses[i % 3]}"}\n`;
    }
    if (!out.write(chunk)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  return path;
}

/** Per row, its last line in the results file: outcome and id, read without losing int64. */
export async function readOutcomes(path) {
  const finals = new Map();
  let text = "";
  try {
    text = await readFile(path, "utf8");
  } catch {
    return finals;
  }
  for (const line of text.split("\n")) {
    const row = /"row":(\d+)/.exec(line);
    if (!row) continue;
    finals.set(row[1], {
      outcome: /"outcome":"(\w+)"/.exec(line)?.[1],
      id: /"id":(\d+)/.exec(line)?.[1],
    });
  }
  return finals;
}

/** The ids in serve's pet file (a JSON array, one pet a line), as strings. */
async function idsInStore(file) {
  const text = await readFile(file, "utf8");
  const ids = [];
  for (const match of text.matchAll(/^\s*\{\s*"id"\s*:\s*(\d+)/gm)) ids.push(match[1]);
  return { ids, unique: new Set(ids) };
}

/**
 * Runs `node <script> ...` (bin/petstore.js add --from ..., or the reference client), wrapped in
 * GNU time when it is there for the command's CPU time and peak RSS. `ms` is spawn to exit, as a
 * user would time it.
 */
export async function runBulk({ repoRoot, script, args, env, scratch, timeoutMs }) {
  const usage = join(scratch, `bulk-usage-${Date.now()}.txt`);
  const wrapped = existsSync(TIME_BIN);
  const command = wrapped ? TIME_BIN : process.execPath;
  const commandArgs = wrapped
    ? ["-f", "%U %S %M", "-o", usage, process.execPath, script, ...args]
    : [script, ...args];
  const startedAt = Date.now();
  const started = performance.now();
  const run = await runToEnd(command, commandArgs, { cwd: repoRoot, env, timeoutMs });
  const ms = performance.now() - started;
  let cpuMs;
  let maxRssKiB;
  if (wrapped) {
    const fields = lastLine(await readFile(usage, "utf8").catch(() => "")).split(" ");
    if (fields.length === 3) {
      cpuMs = (Number(fields[0]) + Number(fields[1])) * 1000;
      maxRssKiB = Number(fields[2]);
    }
  }
  const summaryLine = run.stderr
    .split("\n")
    .reverse()
    .find((line) => line.startsWith("petstore add:"));
  return { ...run, ms, startedAt, cpuMs, maxRssKiB, summaryLine };
}

/**
 * How a bulk subject runs against `server`: the CLI as a user runs it ("cli", "cli-https"), the
 * reference client on raw sockets ("reference") or on an undici Pool ("reference-undici"), or the
 * CLI built with the node:https pool ("pool-https").
 */
export function bulkCommand(plan, subject, server, results) {
  if (subject === "reference" || subject === "reference-undici") {
    return {
      script: REFERENCE_CLIENT,
      args: [
        ["--base-url", server.baseUrl],
        ["--key", BENCH_KEY],
        ["--from", plan.rowsFile],
        ["--results", results],
        ["--concurrency", String(plan.concurrency)],
        ["--transport", subject === "reference" ? "raw" : "undici"],
      ].flat(),
      env: cleanEnv(plan.configDir),
    };
  }
  return {
    script: subject === "pool-https" ? plan.referenceBin : plan.bin,
    args: [
      "add",
      "--from",
      plan.rowsFile,
      "--results",
      results,
      "--concurrency",
      String(plan.concurrency),
    ],
    env: cleanEnv(plan.configDir, {
      PETSTORE_BASE_URL: server.baseUrl,
      PETSTORE_API_KEY: BENCH_KEY,
      ...(server.baseUrl.startsWith("https:") ? { NODE_EXTRA_CA_CERTS: CERT_FILE } : {}),
    }),
  };
}

const overTls = (subject) => subject.endsWith("-https");

/** A fresh copy of the 10,000-pet file; in `plan.storeDir` when the plan has one. */
async function freshStore(ctx, plan) {
  const file = await ctx.pets.fresh(STORE_SIZE);
  if (plan.storeDir === undefined) return file;
  const copy = join(await mkdtemp(join(plan.storeDir, "store-")), "pets.json");
  await copyFile(file, copy);
  return copy;
}

/** A TLS front before `server`: the same serve, reached at https://. */
async function tlsFront(ctx, server) {
  const started = await startProcess(
    process.execPath,
    [TLS_FRONT, "--upstream", new URL(server.origin).host],
    { cwd: ctx.repoRoot, readyPattern: /https:\/\/127\.0\.0\.1:\d+/, timeoutMs: 20_000 },
  );
  return {
    baseUrl: `${started.match[0]}${server.basePath}`,
    stop: () => stopProcess(started.child, 5_000),
  };
}

/** One timed bulk run (a `subject` of bulkCommand) on a fresh, warmed-up serve. */
export async function unlimitedBulkRound(ctx, plan, round, subject = "cli") {
  const { settings, tmp } = ctx;
  const file = await freshStore(ctx, plan);
  const server = await ctx.serve.start(file);
  let stopped = false;
  let front;
  try {
    if (overTls(subject)) front = await tlsFront(ctx, server);
    await postLoad(server, {
      seconds: settings.warmupSeconds,
      connections: plan.concurrency,
      scratchDir: tmp,
    });
    const results = join(plan.dir, `${subject}-results-${round}-${plan.rows}.ndjson`);
    const target = front ? { ...server, baseUrl: front.baseUrl } : server;
    const idBefore = await createOne(server);
    const cpuBefore = await cpuSeconds(server.pid);
    ctx.log(
      `round ${round + 1}: ${SUBJECTS[subject]} ${count(plan.rows)} rows against ${target.baseUrl}`,
    );
    const run = await runBulk({
      repoRoot: ctx.repoRoot,
      ...bulkCommand(plan, subject, target, results),
      scratch: plan.dir,
      timeoutMs: 300_000,
    });
    const cpuAfter = await cpuSeconds(server.pid);
    const idAfter = await createOne(server);
    await front?.stop();
    front = undefined;
    await server.stop(30_000);
    stopped = true;

    const finals = await readOutcomes(results);
    const addedIds = [...finals.values()].filter((f) => f.outcome === "added").map((f) => f.id);
    const store = await idsInStore(file);
    const inFile = addedIds.filter((id) => id !== undefined && store.unique.has(id)).length;
    return {
      round,
      code: run.code,
      signal: run.signal,
      ms: run.ms,
      rowsPerSecond: plan.rows / (run.ms / 1000),
      cliCpuMs: run.cpuMs,
      cliMaxRssKiB: run.maxRssKiB,
      summaryLine: run.summaryLine,
      stderrTail: run.code === 0 ? undefined : run.stderr.trim().split("\n").slice(-3).join(" | "),
      outcomes: finals.size,
      added: addedIds.length,
      distinctAddedIds: new Set(addedIds).size,
      inFile,
      createdByIds: Number(idAfter - idBefore - 1n),
      storePets: store.ids.length,
      storeDuplicates: store.ids.length - store.unique.size,
      serverCpuUsPerRow: ((cpuAfter - cpuBefore) * 1e6) / plan.rows,
      serverCpu: (cpuAfter - cpuBefore) / (run.ms / 1000),
    };
  } finally {
    await front?.stop();
    if (!stopped) await server.stop();
  }
}

const SUBJECTS = {
  cli: "add --from",
  reference: "reference client",
  "reference-undici": "reference client on undici",
  "cli-https": "add --from over https (undici)",
  "pool-https": "add --from over https (reference build, node:https pool)",
};

export function checkProblems(run, rows) {
  const problems = [];
  if (run.code !== 0) {
    problems.push(`exit ${run.signal ?? run.code}${run.stderrTail ? `: ${run.stderrTail}` : ""}`);
  }
  if (run.added !== rows) problems.push(`${count(run.added)} added outcomes, not ${count(rows)}`);
  if (run.distinctAddedIds !== run.added) problems.push(`${run.distinctAddedIds} distinct ids`);
  if (run.inFile !== run.added) problems.push(`${count(run.inFile)} of the ids in serve's file`);
  if (run.createdByIds !== rows) {
    problems.push(`ids advanced by ${count(run.createdByIds)} around the run`);
  }
  if (run.storeDuplicates > 0) problems.push(`${run.storeDuplicates} duplicate ids in the file`);
  return problems;
}

/** One timed bulk run of `subject` against a fresh https stub (bench/lib/https-stub.mjs). */
export async function stubBulkRound(ctx, plan, round, subject) {
  const started = await startProcess(process.execPath, [HTTPS_STUB], {
    cwd: ctx.repoRoot,
    readyPattern: /https:\/\/127\.0\.0\.1:\d+/,
    timeoutMs: 20_000,
  });
  try {
    const results = join(plan.dir, `${subject}-stub-results-${round}.ndjson`);
    const baseUrl = `${started.match[0]}/v1`;
    ctx.log(
      `round ${round + 1}: ${SUBJECTS[subject]} ${count(plan.rows)} rows against a stub at ${baseUrl}`,
    );
    const run = await runBulk({
      repoRoot: ctx.repoRoot,
      ...bulkCommand(plan, subject, { baseUrl }, results),
      scratch: plan.dir,
      timeoutMs: 300_000,
    });
    const finals = await readOutcomes(results);
    const ids = [...finals.values()].filter((f) => f.outcome === "added").map((f) => f.id);
    const problems = [];
    if (run.code !== 0) problems.push(`exit ${run.signal ?? run.code}`);
    if (ids.length !== plan.rows) problems.push(`${count(ids.length)} added outcomes`);
    if (new Set(ids).size !== ids.length) problems.push(`${new Set(ids).size} distinct ids`);
    return {
      round,
      ms: run.ms,
      rowsPerSecond: plan.rows / (run.ms / 1000),
      cliCpuMs: run.cpuMs,
      cliMaxRssKiB: run.maxRssKiB,
      problems,
    };
  } finally {
    await stopProcess(started.child, 5_000);
  }
}
