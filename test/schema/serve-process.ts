/**
 * A real `petstore serve` (bin/petstore.js, the built bundle) on 127.0.0.1:0 in a
 * temporary directory, for the tests that hold the served OpenAPI document
 * against the fake: an enterprise key, so no rate limit gets in the way.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN } from "../server/cli-build.js";

export const SERVE_KEY = "openapi-test-key";

export interface ServeProcess {
  /** The base URL printed by serve, `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  /** The temporary directory that holds the pets file (and anything else of the test). */
  dir: string;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;

/** `extraArgs` go after the defaults; `fileText` is written to the pets file first. */
export async function startServe(
  extraArgs: string[] = [],
  fileText?: string,
): Promise<ServeProcess> {
  const dir = await mkdtemp(join(tmpdir(), "petstore-openapi-"));
  if (fileText !== undefined) await writeFile(join(dir, "pets.json"), fileText);
  const child = spawn(
    process.execPath,
    [
      BIN,
      "serve",
      "--file",
      join(dir, "pets.json"),
      "--port",
      "0",
      "--key",
      `${SERVE_KEY}:enterprise`,
      "--quiet",
      ...extraArgs,
    ],
    { cwd: dir, env: { PATH: process.env.PATH }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  try {
    const baseUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`serve was not ready in time: ${stderr}`)),
        READY_TIMEOUT_MS,
      );
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
        const newline = stdout.indexOf("\n");
        if (newline !== -1) {
          clearTimeout(timer);
          resolve(stdout.slice(0, newline).trim());
        }
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`serve exited before it was ready: ${stderr}`));
      });
    });
    return { baseUrl, dir, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
