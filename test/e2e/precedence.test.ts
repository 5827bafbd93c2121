/**
 * flags > environment > profile > defaults, through the real CLI: each level is
 * given a setting that would fail, so only the winner lets the request through.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/server/server.js";
import { closedPortUrl, PRO_KEY, runCli, startFake, tempDir } from "./harness.js";

let server: RunningServer;
let home: ReturnType<typeof tempDir>;
let deadUrl: string;
let config: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startFake();
  home = tempDir();
  deadUrl = await closedPortUrl();
  config = { PETSTORE_CONFIG_DIR: home.path };
  // "good" has a valid key, a dead production address and the server as its staging
  // address (its environment: staging); "bad" has a rejected key.
  const goodProduction = await runCli(
    [
      "auth",
      "login",
      "--no-verify",
      "--with-token",
      "--profile",
      "good",
      "--env",
      "production",
      "--base-url",
      deadUrl,
    ],
    { env: config, stdin: PRO_KEY },
  );
  const good = await runCli(
    [
      "auth",
      "login",
      "--no-verify",
      "--with-token",
      "--profile",
      "good",
      "--env",
      "staging",
      "--base-url",
      server.url,
    ],
    { env: config, stdin: PRO_KEY },
  );
  const bad = await runCli(
    [
      "auth",
      "login",
      "--no-verify",
      "--with-token",
      "--profile",
      "bad",
      "--env",
      "staging",
      "--base-url",
      server.url,
    ],
    { env: config, stdin: "rejected-key-000000" },
  );
  expect([goodProduction.code, good.code, bad.code]).toEqual([0, 0, 0]);
});
afterAll(async () => {
  await server?.close();
  home?.remove();
});

const list = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(["list", "--no-retry", "-q", ...args], { env: { ...config, ...env } });

describe("precedence of settings", () => {
  it("uses the current profile (the first one logged in) when nothing else is given", async () => {
    expect((await list([])).code).toBe(0);
  });

  it("lets `profile use` change the default for later runs", async () => {
    expect((await runCli(["profile", "use", "bad"], { env: config })).code).toBe(0);
    expect((await list([])).code).toBe(3);
    expect((await runCli(["profile", "use", "good"], { env: config })).code).toBe(0);
  });

  it("lets PETSTORE_PROFILE override the stored default, and --profile override both", async () => {
    expect((await list([], { PETSTORE_PROFILE: "bad" })).code).toBe(3);
    expect((await list(["--profile", "good"], { PETSTORE_PROFILE: "bad" })).code).toBe(0);
  });

  it("lets PETSTORE_API_KEY override the profile's key", async () => {
    expect((await list([], { PETSTORE_API_KEY: "rejected-key-000000" })).code).toBe(3);
    expect((await list(["--profile", "bad"], { PETSTORE_API_KEY: PRO_KEY })).code).toBe(0);
  });

  it("lets PETSTORE_BASE_URL override the profile's address, and --base-url override both", async () => {
    expect((await list([], { PETSTORE_BASE_URL: deadUrl })).code).toBe(6);
    expect((await list(["--base-url", server.url], { PETSTORE_BASE_URL: deadUrl })).code).toBe(0);
  });

  it("lets PETSTORE_ENV and --env pick the profile's address for that environment", async () => {
    expect((await list([], { PETSTORE_ENV: "production" })).code).toBe(6);
    expect((await list(["--env", "staging"], { PETSTORE_ENV: "production" })).code).toBe(0);
  });
});
