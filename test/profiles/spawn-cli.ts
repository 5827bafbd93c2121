/**
 * The real CLI (dist/, built by test/global-setup.ts) as a child process with an
 * environment of its own, a working directory, an optional user id and a stdin
 * that may be a file descriptor; killed after `timeoutMs` so a CLI that blocks or
 * spins fails its test instead of hanging it.
 */
import { spawn, type StdioOptions } from "node:child_process";
import { BIN } from "../server/cli-build.js";

export interface SpawnedRun {
  code: number | null;
  /** Set when the run had to be killed at the time limit. */
  killed: boolean;
  stdout: string;
  stderr: string;
}

export interface SpawnOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  uid?: number;
  /** Text to write to stdin, or a file descriptor to hand over as stdin. */
  stdin?: string | number;
  timeoutMs?: number;
}

export function spawnCli(args: string[], options: SpawnOptions): Promise<SpawnedRun> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, ...options.env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  const stdio: StdioOptions = [
    typeof options.stdin === "number" ? options.stdin : "pipe",
    "pipe",
    "pipe",
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env,
      stdio,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid }),
    });
    let stdout = "";
    let stderr = "";
    let killed = false;
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, options.timeoutMs ?? 20_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, killed, stdout, stderr });
    });
    if (child.stdin) {
      child.stdin.on("error", () => undefined);
      child.stdin.end(typeof options.stdin === "string" ? options.stdin : "");
    }
  });
}
