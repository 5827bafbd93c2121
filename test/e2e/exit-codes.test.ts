/** Every exit code of the real CLI, each from a real cause. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/server/server.js";
import { closedPortUrl, PRO_KEY, runCli, startFake, startOddServer, tempDir } from "./harness.js";

const LIMITED_KEY = "e2e-one-per-minute";
/** The middle of a minute, so the one-request window cannot roll over during the test. */
const MID_MINUTE = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
const startedAt = Date.now();

let server: RunningServer;
let home: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startFake({
    seed: 1,
    keys: [`${PRO_KEY}:pro`, `${LIMITED_KEY}:enterprise:1/1000`],
    clock: { now: () => MID_MINUTE + (Date.now() - startedAt) },
  });
  home = tempDir();
  env = {
    PETSTORE_BASE_URL: server.url,
    PETSTORE_API_KEY: PRO_KEY,
    PETSTORE_CONFIG_DIR: home.path,
  };
});
afterAll(async () => {
  await server?.close();
  home?.remove();
});

describe("exit codes of the real CLI", () => {
  it("0: success", async () => {
    expect((await runCli(["list", "-q"], { env })).code).toBe(0);
  });

  it("1: an answer that is not the service's, with no stack trace", async () => {
    const odd = await startOddServer((_req, res) => res.writeHead(200).end("<html>hello</html>"));
    try {
      const run = await runCli(["list"], { env: { ...env, PETSTORE_BASE_URL: odd.url } });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^error: /);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await odd.close();
    }
  });

  it("2: an invalid flag, checked before anything is sent", async () => {
    const before = server.stats().responses;
    const run = await runCli(["list", "--limit", "500"], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--limit must be an integer from 1 to 100");
    expect(server.stats().responses).toBe(before);
  });

  it("2: commander's own usage errors", async () => {
    expect((await runCli(["get"], { env })).code).toBe(2);
    expect((await runCli(["list", "--colour"], { env })).code).toBe(2);
  });

  it("3: a key the service rejects", async () => {
    const run = await runCli(["list"], { env: { ...env, PETSTORE_API_KEY: "not-a-known-key" } });
    expect(run.code).toBe(3);
    expect(run.stderr).not.toContain("not-a-known-key");
  });

  it("4: a pet that does not exist", async () => {
    const run = await runCli(["get", "424242"], { env });
    expect(run.code).toBe(4);
  });

  it("5: still rate limited when no retry is allowed", async () => {
    const limited = { ...env, PETSTORE_API_KEY: LIMITED_KEY };
    expect((await runCli(["list", "-q"], { env: limited })).code).toBe(0);
    const run = await runCli(["list", "--no-retry"], { env: limited });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("429");
    expect(run.stderr).toMatch(
      /rate limited \(429\): the per-minute limit of 1 request is used up \(after 1 attempt\); try again in \d+ s\n/,
    );
    // Retries were turned off: more attempts are not offered as the way out.
    expect(run.stderr).not.toContain("--max-retries");
  });

  it("6: nothing listening at the address", async () => {
    const run = await runCli(["list", "--no-retry"], {
      env: { ...env, PETSTORE_BASE_URL: await closedPortUrl() },
    });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain("connection refused");
  });

  it("7: an add whose connection is cut after the service processed it, not repeated", async () => {
    const faulty = await startFake({ faults: { failRate: 1, failMode: "reset-after" } });
    try {
      const before = faulty.store.size;
      const run = await runCli(["add", "--name", "Rex", "--category-id", "1"], {
        env: { ...env, PETSTORE_BASE_URL: faulty.url },
      });
      expect(run.code).toBe(7);
      expect(run.stderr).toContain("may or may not have been added");
      expect(faulty.store.size).toBe(before + 1);
    } finally {
      await faulty.close();
    }
  });
});
