/**
 * Runs `main()` in-process against a test IO (buffers, TTY flags per stream), an
 * HTTP stub registry, a fake clock whose sleeps return at once (advancing it),
 * and a fresh config directory.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { afterEach, beforeEach } from "vitest";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../src/cli.js";
import { createTestIO, type TestIO, type TestIOOptions } from "../test-io.js";
import { createHttpStubs, type HttpStubs } from "./http-stubs.js";

export const BASE_URL = "http://127.0.0.1:9/v1";
export const API_KEY = "psk_test_0123456789abcdef";
/** 5 November 2030, 00:00 UTC: 30 days before the sunset of GET /pets/{petId}. */
export const NOW = Date.UTC(2030, 10, 5);

export interface CliRun {
  code: number;
  out: string;
  err: string;
  io: TestIO;
  /** Every wait the client asked for, in ms. */
  sleeps: number[];
}

export interface CliContext {
  stubs: HttpStubs;
  env: NodeJS.ProcessEnv;
  configDir: string;
  /** `now`: the clock at the start of the run (NOW unless given). */
  run(
    argv: string[],
    options?: TestIOOptions & { env?: NodeJS.ProcessEnv; now?: number },
  ): Promise<CliRun>;
  cleanup(): void;
}

export function cliContext(env: NodeJS.ProcessEnv = {}): CliContext {
  const configDir = mkdtempSync(join(tmpdir(), "petstore-cli-test-"));
  const stubs = createHttpStubs(BASE_URL);
  const baseEnv: NodeJS.ProcessEnv = {
    PETSTORE_CONFIG_DIR: configDir,
    PETSTORE_BASE_URL: BASE_URL,
    PETSTORE_API_KEY: API_KEY,
    ...env,
  };
  return {
    stubs,
    env: baseEnv,
    configDir,
    async run(argv, options = {}) {
      const runEnv = { ...baseEnv, ...options.env };
      for (const [key, value] of Object.entries(runEnv))
        if (value === undefined) delete runEnv[key];
      const io = createTestIO({ ...options, env: runEnv });
      let clock = options.now ?? NOW;
      const sleeps: number[] = [];
      const code = await main(argv, {
        io,
        env: runEnv,
        transport: stubs.transport,
        now: () => clock,
        sleep: async (ms) => {
          sleeps.push(ms);
          clock += ms;
        },
        random: () => 0.5,
      });
      return { code, out: io.out(), err: io.err(), io, sleeps };
    },
    cleanup() {
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}

/**
 * One CliContext object for a whole test file, fresh for every test (a new
 * config dir and stub registry), whose stubs are verified and dir removed after it.
 */
export function cliForEachTest(): CliContext {
  const cli = {} as CliContext;
  beforeEach(() => {
    Object.assign(cli, cliContext());
  });
  afterEach(() => {
    cli.stubs.verify();
    cli.cleanup();
  });
  return cli;
}
