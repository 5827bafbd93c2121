/**
 * Every process the bench starts goes through here, so all of them can be stopped at the end,
 * on failure and on Ctrl-C.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";

const running = new Set();
const CLOCK_TICKS_PER_SECOND = 100;
let shuttingDown = false;

export function track(child) {
  // After Ctrl-C a phase may still be unwinding: whatever it starts then is stopped at once.
  if (shuttingDown) child.kill("SIGKILL");
  running.add(child);
  child.once("exit", () => running.delete(child));
  return child;
}

function hasExited(child) {
  return child.exitCode !== null || child.signalCode !== null;
}

/** SIGTERM, then SIGKILL after `graceMs`. Reports how the process ended and how long it took. */
export async function stopProcess(child, graceMs = 15_000) {
  if (hasExited(child)) {
    return { code: child.exitCode, signal: child.signalCode, ms: 0, killed: false };
  }
  const started = performance.now();
  const exited = new Promise((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  child.kill("SIGTERM");
  let timer;
  const gaveUp = new Promise((resolve) => {
    timer = setTimeout(() => resolve(undefined), graceMs);
  });
  let ended = await Promise.race([exited, gaveUp]);
  clearTimeout(timer);
  const killed = ended === undefined;
  if (killed) {
    child.kill("SIGKILL");
    ended = await exited;
  }
  return { ...ended, ms: performance.now() - started, killed };
}

export async function stopAll() {
  shuttingDown = true;
  await Promise.all([...running].map((child) => stopProcess(child, 5_000)));
}

/**
 * Spawns a long-running process and waits for a stdout line matching `readyPattern`.
 * `readyMs` runs from just before spawn to the moment that line arrived. `onStderr`, when given,
 * receives every stderr chunk for the life of the process (an access log to count, say).
 */
export function startProcess(
  command,
  args,
  { env, cwd, readyPattern, timeoutMs = 60_000, onStderr },
) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = track(
      spawn(command, args, { cwd, env: env ?? process.env, stdio: ["ignore", "pipe", "pipe"] }),
    );
    let stdoutTail = "";
    let stderrTail = "";
    let settled = false;
    const finish = (error, value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(value);
    };
    const fail = (why) => {
      const detail = (stderrTail.trim() || stdoutTail.trim()).split("\n").slice(-3).join(" | ");
      finish(new Error(detail ? `${why}: ${detail}` : why));
    };
    const timer = setTimeout(() => {
      void stopProcess(child, 2_000);
      fail(`no ready line within ${timeoutMs / 1000} s`);
    }, timeoutMs);
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      if (settled) return;
      const readyMs = performance.now() - started;
      stdoutTail = (stdoutTail + chunk).slice(-4096);
      for (const line of stdoutTail.split("\n")) {
        const match = readyPattern.exec(line);
        if (match) {
          finish(undefined, { child, match, line, readyMs, stderr: () => stderrTail });
          return;
        }
      }
    });
    child.stderr.on("data", (chunk) => {
      stderrTail = (stderrTail + chunk).slice(-4096);
      onStderr?.(chunk);
    });
    child.once("error", (error) => fail(`cannot start ${command}: ${error.message}`));
    child.once("exit", (code, signal) => fail(`exited (${signal ?? `code ${code}`}) before ready`));
  });
}

/** Runs a short command to completion, capturing its output (for checks, not for timing). */
export function runToEnd(command, args, { env, cwd, timeoutMs = 30_000 } = {}) {
  return new Promise((resolve) => {
    const child = track(
      spawn(command, args, { cwd, env: env ?? process.env, stdio: ["ignore", "pipe", "pipe"] }),
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => void stopProcess(child, 1_000), timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr: stderr + error.message });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

async function procStatusKiB(pid, field) {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Peak resident memory so far (VmHWM), in KiB; undefined once the process is gone. */
export function peakRssKiB(pid) {
  return procStatusKiB(pid, "VmHWM");
}

/** Resident memory now (VmRSS), in KiB; undefined once the process is gone. */
export function rssKiB(pid) {
  return procStatusKiB(pid, "VmRSS");
}

/** User + system CPU seconds the process has used so far (Linux /proc). */
export async function cpuSeconds(pid) {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // After the command name: field 3 is the state, so utime (14) and stime (15) sit at 11 and 12.
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}
