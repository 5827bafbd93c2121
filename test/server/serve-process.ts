/** `petstore serve` as a child process (bin/petstore.js), for the end-to-end tests of the command. */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { BIN } from "./cli-build.js";

export interface Serve {
  child: ChildProcessWithoutNullStreams;
  /** The first `count` stdout lines. */
  lines: string[];
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface ServeSpawnOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

const running: ChildProcessWithoutNullStreams[] = [];

/** For afterEach: SIGKILL every serve still running. */
export function killServes(): void {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
}

export function spawnServe(
  args: string[],
  options: ServeSpawnOptions,
): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [BIN, "serve", ...args], {
    cwd: options.cwd,
    env: { ...process.env, PETSTORE_SERVE_KEYS: undefined, ...options.env },
  });
  running.push(child);
  return child;
}

/** Starts serve and resolves once it has printed `count` lines on stdout. */
export function startServe(args: string[], options: ServeSpawnOptions, count = 1): Promise<Serve> {
  const child = spawnServe(args, options);
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (data: Buffer) => (stderr += data.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (data: Buffer) => {
      stdout += data.toString();
      const lines = stdout.split("\n");
      if (lines.length > count)
        resolve({ child, lines: lines.slice(0, count), stderr: () => stderr, exited });
    });
    void exited.then(({ code }) =>
      reject(new Error(`serve exited with ${code} before it was ready: ${stderr}`)),
    );
  });
}

const REFUSAL_TIMEOUT_MS = 10_000;

/**
 * Runs serve to its end, for the ones that must refuse to start: one that starts
 * after all (prints its URL) or hangs is killed, and its code is null.
 */
export async function runServe(args: string[], options: ServeSpawnOptions) {
  const child = spawnServe(args, options);
  let stdout = "";
  let stderr = "";
  const timer = setTimeout(() => child.kill("SIGKILL"), REFUSAL_TIMEOUT_MS);
  child.stdout.on("data", (data: Buffer) => {
    stdout += data.toString();
    if (stdout.includes("\n")) child.kill("SIGKILL");
  });
  child.stderr.on("data", (data: Buffer) => (stderr += data.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearTimeout(timer);
  return { code, stdout, stderr };
}
