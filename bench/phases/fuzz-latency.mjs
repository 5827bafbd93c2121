/**
 * How much a stream of malformed requests slows a normal one: the latency of a GET sent every
 * 10 ms to `petstore serve` while 4 connections send the fuzz test's malformed requests (bad
 * framing, huge numbers, deep nesting, invalid UTF-8...), against the same GET on the same serve
 * with nothing else going on. Rounds alternate quiet and fuzzed; figures are medians of the
 * probe's latencies. A probe's latency counts from when it was due, and every slot that fell
 * due while one waited counts too, so a stall of the fake shows in full. The fuzz test
 * (test/server/fuzz-sockets.test.ts) checks the answers; this phase holds the speed goal.
 */
import { build } from "esbuild";
import { connect } from "node:net";
import { join } from "node:path";
import { request } from "../lib/http.mjs";
import { measured, notAvailable } from "../lib/report.mjs";
import { median } from "../lib/stats.mjs";

export const name = "fuzz-latency";
export const summary =
  "a GET's median latency on serve while 4 connections send malformed requests, vs an idle serve";

const KEY = "fuzz-key";
const FREE_KEY = "fuzz-free";
const SEED = 20_261_123;
const SAMPLE = 3_000;
const FUZZ_CONNECTIONS = 4;
const PROBE_EVERY_MS = 10;
const CLIENT_TIMEOUT_MS = 5_000;
const STORE_SIZE = 50;
/** A stall of the fake (one hostile request blocking the event loop) moves the median. */
const GOAL = { on: "ratio", op: "<=", value: 10 };
const MEASUREMENT = `serve GET /v1/pets?limit=1 every ${PROBE_EVERY_MS} ms, median latency, ${FUZZ_CONNECTIONS} connections of malformed requests vs none`;

async function loadSample(tmp) {
  const outfile = join(tmp, "malformed-sample.mjs");
  await build({
    entryPoints: [new URL("../fixtures/malformed-sample.ts", import.meta.url).pathname],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "warning",
  });
  const { sampleMalformed } = await import(outfile);
  return sampleMalformed(KEY, FREE_KEY, SEED, SAMPLE);
}

/** Writes one raw request, half-closes, and waits until the fake closes (or the client gives up). */
function exchange(port, raw) {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const timer = setTimeout(() => socket.destroy(), CLIENT_TIMEOUT_MS);
    socket.on("data", () => {});
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      resolve();
    });
    socket.cork();
    for (const part of raw.parts) socket.write(part);
    socket.end();
    socket.uncork();
  });
}

/** Probes for `seconds`, with `fuzz` malformed requests going on beside it or not. */
async function probeFor(target, seconds, requests) {
  const latencies = [];
  let errors = 0;
  let sent = 0;
  const until = performance.now() + seconds * 1000;
  const running = () => performance.now() < until;
  const worker = async () => {
    while (running()) await exchange(target.port, requests[sent++ % requests.length]);
  };
  const probe = async () => {
    let due = performance.now();
    while (running()) {
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const answer = await request("GET", `${target.baseUrl}/pets?limit=1`, {
        headers: { authorization: `Bearer ${KEY}` },
      }).catch(() => undefined);
      const end = performance.now();
      if (answer?.status !== 200) errors++;
      latencies.push(end - due);
      for (due += PROBE_EVERY_MS; due < end; due += PROBE_EVERY_MS) latencies.push(end - due);
    }
  };
  const workers = requests.length === 0 ? [] : Array.from({ length: FUZZ_CONNECTIONS }, worker);
  await Promise.all([probe(), ...workers]);
  return { median: median(latencies), probes: latencies.length, errors, fuzzed: sent };
}

export async function run(ctx) {
  const serveState = await ctx.serve.available();
  if (!serveState.ok) {
    ctx.record(
      notAvailable({
        phase: name,
        measurement: MEASUREMENT,
        unit: "ms",
        goal: GOAL,
        reason: serveState.reason,
      }),
    );
    return;
  }
  const requests = await loadSample(ctx.tmp);
  const file = await ctx.pets.fresh(STORE_SIZE);
  const started = await ctx.serve.start(file, {
    keys: [`${KEY}:enterprise`, `${FREE_KEY}:free`],
  });
  const target = { ...started, port: Number(new URL(started.baseUrl).port) };
  const samples = { quiet: [], fuzzed: [] };
  try {
    await probeFor(target, ctx.settings.warmupSeconds, requests);
    const rounds = ctx.settings.readRounds;
    for (let i = 0; i < rounds; i++) {
      for (const which of i % 2 === 0 ? ["quiet", "fuzzed"] : ["fuzzed", "quiet"]) {
        ctx.log(`round ${i + 1} of ${rounds}: probe, ${which}`);
        samples[which].push(
          await probeFor(target, ctx.settings.loadSeconds, which === "quiet" ? [] : requests),
        );
      }
    }
    // The fake must still answer after the fuzz.
    const after = await request("GET", `${target.baseUrl}/pets?limit=1`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    if (after.status !== 200) throw new Error(`serve answered ${after.status} after the fuzz`);
  } finally {
    await started.stop();
  }
  const { quiet, fuzzed } = samples;
  const errors = [...quiet, ...fuzzed].reduce((sum, sample) => sum + sample.errors, 0);
  ctx.record(
    measured({
      phase: name,
      measurement: MEASUREMENT,
      figure: median(fuzzed.map((sample) => sample.median)),
      unit: "ms",
      baseline: median(quiet.map((sample) => sample.median)),
      baselineLabel: "no fuzz",
      goal: GOAL,
      notes: [
        `medians per round, fuzzed ${fuzzed.map((s) => s.median.toFixed(2)).join(", ")} ms, quiet ${quiet.map((s) => s.median.toFixed(2)).join(", ")} ms; ${fuzzed.reduce((sum, s) => sum + s.fuzzed, 0)} malformed requests sent`,
        ...(errors > 0 ? [`${errors} probes not answered 200`] : []),
      ],
    }),
  );
  ctx.detail("probe", samples);
}
