/**
 * The real CLI (dist/, built by test/global-setup.ts) as a child process with an
 * environment of its own, a working directory, an optional user id and a stdin
 * that may be a file descriptor; killed after `timeoutMs` so a CLI that blocks or
 * spins fails its test instead of hanging it.
 */
import { spawn, type StdioOptions } from "node:child_process";
import { chmodSync, cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { BIN, REPO_ROOT } from "../server/cli-build.js";

let readableCopy: string | undefined;
afterAll(() => {
  if (readableCopy !== undefined)
    rmSync(join(readableCopy, "..", ".."), { recursive: true, force: true });
});

/**
 * The launcher of a copy of the built CLI that any user can read. A run as
 * another user cannot read the checkout itself when it sits in a private home
 * directory (`/root` is 0700), where most people clone. The copy holds what the
 * launcher loads (bin/, dist/'s bundles, package.json) and is removed after the
 * test file.
 */
function readableBin(): string {
  if (readableCopy === undefined) {
    const root = mkdtempSync(join(tmpdir(), "petstore-cli-copy-"));
    chmodSync(root, 0o755);
    for (const entry of ["bin", "dist", "package.json"]) {
      cpSync(join(REPO_ROOT, entry), join(root, entry), {
        recursive: true,
        // Not what the launcher loads: the standalone binaries and their work files, the types.
        filter: (source) => !/[/\\]dist[/\\](sea|types|petstore-[^/\\]*)$/.test(source),
      });
    }
    readableCopy = join(root, "bin", "petstore.js");
  }
  return readableCopy;
}

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
    const bin = options.uid === undefined ? BIN : readableBin();
    const child = spawn(process.execPath, [bin, ...args], {
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
