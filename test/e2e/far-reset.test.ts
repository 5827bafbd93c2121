/**
 * A service whose X-RateLimit-Reset is fifteen digits of seconds, past what a
 * Date holds: the real CLI's adds still succeed with --verbose (one pet per row,
 * and a resume adds none again), and its rate-limit message reads as a moment.
 */
import { join } from "node:path";
import { writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, startOddServer, tempDir } from "./harness.js";

const FAR = "999999999999999";
let posts = 0;
let limited = false;
let server: Awaited<ReturnType<typeof startOddServer>>;
let dir: ReturnType<typeof tempDir>;

beforeAll(async () => {
  dir = tempDir();
  server = await startOddServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const headers = {
        "content-type": "application/json",
        "x-ratelimit-limit": "60",
        "x-ratelimit-remaining": limited ? "0" : "59",
        "x-ratelimit-reset": FAR,
      };
      if (limited) {
        res.writeHead(429, headers);
        res.end('{"code":"rate_limited","message":"no more","status":429}');
        return;
      }
      posts++;
      res.writeHead(201, headers);
      res.end(`{"id":${posts},"name":"Rex","categoryId":1,"status":"available"}`);
    });
  });
});
afterAll(async () => {
  await server.close();
  dir.remove();
});

const env = () => ({
  PETSTORE_CONFIG_DIR: dir.path,
  PETSTORE_BASE_URL: server.url,
  PETSTORE_API_KEY: "far-reset-key-0123456789",
});

describe("an X-RateLimit-Reset past what a Date holds", () => {
  it("leaves a successful add successful with --verbose and PETSTORE_DEBUG=1", async () => {
    limited = false;
    posts = 0;
    const verbose = await runCli(["add", "-n", "Rex", "-c", "1", "-q", "--verbose"], {
      env: env(),
    });
    expect(verbose.code, verbose.stderr).toBe(0);
    expect(verbose.stdout).toBe("1\n");
    expect(verbose.stderr).toContain("resets +275760-09-13T00:00:00.000Z");
    const debug = await runCli(["add", "-n", "Rex", "-c", "1", "-q"], {
      env: { ...env(), PETSTORE_DEBUG: "1" },
    });
    expect(debug.code, debug.stderr).toBe(0);
    expect(debug.stdout).toBe("2\n");
  });

  it("adds each row of add --from --verbose once, and a resume adds none again", async () => {
    limited = false;
    posts = 0;
    const input = join(dir.path, "two.csv");
    const results = join(dir.path, "two.results.ndjson");
    await writeFile(input, "name,categoryId\nRex,1\nTom,2\n");
    const run = await runCli(["add", "--from", input, "--results", results, "--verbose"], {
      env: env(),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("2 added, 0 invalid, 0 failed");
    const resumed = await runCli(["add", "--from", input, "--resume", results, "--verbose"], {
      env: env(),
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain("0 added, 2 added before");
    expect(posts).toBe(2);
  });

  it("names the moment of a 429's reset in words, without --verbose", async () => {
    limited = true;
    const run = await runCli(["add", "-n", "Rex", "-c", "1", "--no-retry"], { env: env() });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("(at 00:00 UTC on 13 Sep 275760)");
    expect(run.stderr).not.toMatch(/NaN|undefined|Invalid/);
  });

  it("stops add --from at such a reset, naming it, without a timer overflowing", async () => {
    limited = true;
    const input = join(dir.path, "limited.csv");
    await writeFile(input, "name,categoryId\nRex,1\nTom,2\n");
    const run = await runCli(["add", "--from", input], { env: env() });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain(
      "the rate limit allows no more requests until +275760-09-13 00:00:00 UTC",
    );
    expect(run.stderr).not.toContain("TimeoutOverflowWarning");
    expect(run.stderr).not.toMatch(/NaN|undefined|Invalid/);
  });
});
