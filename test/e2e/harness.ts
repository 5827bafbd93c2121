/**
 * End-to-end runs: the real CLI (the packed npm package's `bin/petstore.js`, test/e2e/cli.ts) as a child process, with an environment of its own (a fresh config directory, no
 * PETSTORE_* variable from the machine), against a real server on 127.0.0.1:0.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type RequestListener } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StartServerOptions } from "../../src/server/options.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { serve, type Served } from "../dist/run.js";
import { HANG_MS } from "../limits.js";
import { CLI } from "./cli.js";

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  stdin?: string;
}

const RUN_TIMEOUT_MS = 25_000;

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, ...options.env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  return new Promise((resolve, reject) => {
    const child = spawn(CLI[0], [CLI[1], ...args], { env, stdio: "pipe" });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    // A command that never reads its input may end before this write: EPIPE then says
    // only that, and the exit code and output are what the test asserts.
    child.stdin.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") reject(error);
    });
    child.stdin.end(options.stdin ?? "");
  });
}

/** A fresh directory for the config file (PETSTORE_CONFIG_DIR) and other files. */
export function tempDir(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), "petstore-e2e-"));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export const PRO_KEY = "e2e-pro-key-0123456789";

/** `count` NDJSON rows named `<prefix>-<n>`, written to `dir/name`; the file's path. */
export function writeNdjsonRows(dir: string, name: string, count: number, prefix: string): string {
  const path = join(dir, name);
  let text = "";
  for (let i = 1; i <= count; i++) text += `{"name":"${prefix}-${i}","categoryId":${i}}\n`;
  writeFileSync(path, text);
  return path;
}

/** The fake service, as `petstore serve` runs it, in memory, silent. */
export function startFake(options: StartServerOptions = {}): Promise<RunningServer> {
  return startServer({
    port: 0,
    keys: [`${PRO_KEY}:pro`],
    quiet: true,
    log: { write: () => undefined },
    ...options,
  });
}

/** A server that answers every request with `listener`, for what the fake never does. */
export async function startOddServer(
  listener: RequestListener,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A loopback port with nothing listening on it. */
export async function closedPortUrl(): Promise<string> {
  const odd = await startOddServer(() => undefined);
  await odd.close();
  return odd.url;
}

/**
 * `petstore serve` as a process, on a data file of these pets (JSON texts, one per pet) in a
 * fresh directory, and the CLI run against it there, synchronously.
 */
export async function servePetsFile(pets: string[]) {
  const dir = tempDir();
  writeFileSync(join(dir.path, "pets.json"), `[\n${pets.join(",\n")}\n]\n`);
  let served: Served;
  try {
    served = await serve(
      [...CLI],
      ["--file", join(dir.path, "pets.json"), "--key", `${PRO_KEY}:pro`],
      { cwd: dir.path, env: { PATH: process.env.PATH, HOME: dir.path } },
    );
  } catch (error) {
    dir.remove();
    throw error;
  }
  return {
    dir: dir.path,
    url: served.url,
    cli: (args: string[]) =>
      spawnSync(CLI[0], [CLI[1], ...args], {
        cwd: dir.path,
        env: {
          PATH: process.env.PATH,
          HOME: dir.path,
          PETSTORE_CONFIG_DIR: dir.path,
          PETSTORE_BASE_URL: served.url,
          PETSTORE_API_KEY: PRO_KEY,
        },
        encoding: "utf8",
        timeout: HANG_MS / 2,
      }),
    async stop() {
      await served.stop();
      dir.remove();
    },
  };
}
