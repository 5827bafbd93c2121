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

/** Max resident set size of one run in KiB, as GNU time reports it (wait4's ru_maxrss). */
export function maxRssOnce({ command, args, env, cwd }, scratchDir, index) {
  const output = join(scratchDir, `maxrss-${process.pid}-${index}.txt`);
  return new Promise((resolve) => {
    const child = track(
      spawn(TIME_BIN, ["-f", "%M", "-o", output, command, ...args], { cwd, env, stdio: "ignore" }),
    );
    child.once("error", () => resolve({ kib: Number.NaN, code: null }));
    child.once("exit", async (code) => {
      const text = await readFile(output, "utf8").catch(() => "");
      await rm(output, { force: true });
      const kib = Number(text.trim().split("\n").pop());
      resolve({ kib: Number.isFinite(kib) && kib > 0 ? kib : Number.NaN, code });
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

export function pairedMaxRss(subjects, { rounds, warmupRounds, scratchDir }) {
  return interleave(subjects, {
    rounds,
    warmupRounds,
    measure: (subject, index) => maxRssOnce(subject, scratchDir, index),
    value: (sample) => sample.kib,
  });
}
