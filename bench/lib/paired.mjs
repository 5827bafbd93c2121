/**
 * Paired timing of short-lived processes: every round runs each command once, in turn
 * (A B C A B C ...), so drift on a noisy machine hits all of them alike; medians, not means.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { track } from "./processes.mjs";
import { median, spread } from "./stats.mjs";

export const TIME_BIN = "/usr/bin/time";

/** Wall time of one run, spawn to exit, with stdout and stderr discarded. */
export function timeOnce({ command, args, env, cwd }) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = track(spawn(command, args, { cwd, env, stdio: "ignore" }));
    child.once("error", () => resolve({ ms: Number.NaN, code: null }));
    child.once("exit", (code) => resolve({ ms: performance.now() - started, code }));
  });
}

// bash's `time` reports the children's user and system CPU to the millisecond (GNU time
// rounds to 10 ms); GNU time inside it gives the max RSS. Both add the same tiny cost to all.
const RESOURCE_SCRIPT =
  'mem="$1"; cpu="$2"; timebin="$3"; shift 3; TIMEFORMAT="%3U %3S"; ' +
  '{ time "$timebin" -f %M -o "$mem" "$@" >/dev/null 2>&1; } 2>"$cpu"';

/**
 * Max resident set size (KiB, wait4's ru_maxrss) and CPU time (user + system, ms) of one run.
 * CPU time, unlike wall time, barely moves when other work shares the cores.
 */
export function resourceUseOnce({ command, args, env, cwd }, scratchDir, index) {
  const memoryFile = join(scratchDir, `maxrss-${process.pid}-${index}.txt`);
  const cpuFile = join(scratchDir, `cpu-${process.pid}-${index}.txt`);
  const shellArgs = ["-c", RESOURCE_SCRIPT, "bench", memoryFile, cpuFile, TIME_BIN, command];
  return new Promise((resolve) => {
    const child = track(spawn("bash", [...shellArgs, ...args], { cwd, env, stdio: "ignore" }));
    child.once("error", () => resolve({ kib: Number.NaN, cpuMs: Number.NaN, code: null }));
    child.once("exit", async (code) => {
      const memoryText = await readFile(memoryFile, "utf8").catch(() => "");
      const cpuText = await readFile(cpuFile, "utf8").catch(() => "");
      await rm(memoryFile, { force: true });
      await rm(cpuFile, { force: true });
      const kib = Number(memoryText.trim().split("\n").pop());
      const [user, system] = cpuText.trim().split("\n").pop().split(" ").map(Number);
      resolve({
        kib: Number.isFinite(kib) && kib > 0 ? kib : Number.NaN,
        cpuMs: (user + system) * 1000,
        code,
      });
    });
  });
}

export function canMeasureMaxRss() {
  return existsSync(TIME_BIN);
}

/**
 * @param {{name: string, command: string, args: string[], env?: object, cwd?: string}[]} subjects
 * @param {{rounds: number, warmupRounds: number, measure: (subject, index) => Promise<object>,
 *   value: (sample) => number}} plan
 * @returns per subject: samples, median, spread, and how many runs exited non-zero
 */
export async function interleave(subjects, { rounds, warmupRounds, measure, value }) {
  const samples = subjects.map(() => []);
  const failures = subjects.map(() => 0);
  let index = 0;
  for (let round = 0; round < warmupRounds + rounds; round++) {
    for (let i = 0; i < subjects.length; i++) {
      const sample = await measure(subjects[i], index++);
      if (round < warmupRounds) continue;
      if (sample.code !== 0) failures[i]++;
      else samples[i].push(value(sample));
    }
  }
  return subjects.map((subject, i) => ({
    name: subject.name,
    samples: samples[i],
    median: median(samples[i]),
    spread: spread(samples[i]),
    failures: failures[i],
  }));
}

export function pairedWallTimes(subjects, { rounds, warmupRounds }) {
  return interleave(subjects, {
    rounds,
    warmupRounds,
    measure: (subject) => timeOnce(subject),
    value: (sample) => sample.ms,
  });
}

/** Max RSS and CPU time per subject; `interleave` results for each, keyed `maxRss` and `cpu`. */
export async function pairedResourceUse(subjects, { rounds, warmupRounds, scratchDir }) {
  const samples = await interleave(subjects, {
    rounds,
    warmupRounds,
    measure: (subject, index) => resourceUseOnce(subject, scratchDir, index),
    value: (sample) => sample,
  });
  const summarise = (result, pick) => {
    const values = result.samples.map(pick).filter(Number.isFinite);
    return { ...result, samples: values, median: median(values), spread: spread(values) };
  };
  return samples.map((result) => ({
    maxRss: summarise(result, (sample) => sample.kib),
    cpu: summarise(result, (sample) => sample.cpuMs),
  }));
}
