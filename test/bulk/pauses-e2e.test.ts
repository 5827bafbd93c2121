/**
 * Two pauses from two requests in flight: a 429 with a Retry-After, then a 503
 * whose own wait is shorter. The bulk add must still wait the longer one before
 * it sends anything: the real CLI against a small server on loopback that
 * answers the two in that order and records when each later request arrives.
 * (test/bulk/pacer.test.ts checks the same rule at the pacer, on a fake clock.)
 */
import { join } from "node:path";
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../client/http-server.js";
import { ensureBuilt, runCli } from "./cli.js";
import { csvOf, finalOutcomes, resultLines, tempDir, writeInput } from "./helpers.js";

/** Long enough to tell from the 503's 1 s, short enough for a test. */
const RETRY_AFTER_S = 3;

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  await ensureBuilt();
  ({ dir, cleanup } = await tempDir());
});
afterAll(() => cleanup());

const limits = {
  "content-type": "application/json",
  "x-ratelimit-limit": "1000",
  "x-ratelimit-remaining": "900",
  "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600),
};

describe("a 429's Retry-After, then a 503's shorter wait, with both requests in flight", () => {
  it("sends nothing until the Retry-After has passed", async () => {
    let posts = 0;
    let limitedAt = 0;
    const held: ServerResponse[] = [];
    const later: number[] = [];
    const created = (res: ServerResponse) => {
      res.writeHead(201, limits);
      res.end(`{"id":${++posts},"name":"x","categoryId":1,"status":"available"}`);
    };
    const server: TestServer = await startServer((_req, res) => {
      if (posts === 0) return created(res);
      if (limitedAt === 0) {
        // The second and third requests: answered together, the 429 first.
        held.push(res);
        if (held.length < 2) return;
        const [first, second] = held as [ServerResponse, ServerResponse];
        limitedAt = Date.now();
        first.writeHead(429, { ...limits, "retry-after": String(RETRY_AFTER_S) });
        first.end('{"code":"rate_limited","message":"wait","status":429}');
        setTimeout(() => {
          second.writeHead(503, { ...limits, "retry-after": "1" });
          second.end('{"code":"fault_injected","message":"later","status":503}');
        }, 20);
        return;
      }
      later.push(Date.now() - limitedAt);
      created(res);
    });
    try {
      const input = await writeInput(dir, "pauses.csv", csvOf(4, "pause"));
      const results = join(dir, "pauses.results");
      const run = await runCli(
        ["add", "--from", input, "--results", results, "--concurrency", "2"],
        { PETSTORE_BASE_URL: server.baseUrl, PETSTORE_API_KEY: "k", PETSTORE_CONFIG_DIR: dir },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain("4 added");
      const outcomes = finalOutcomes(await resultLines(results));
      expect([...outcomes.values()].map((line) => line.outcome)).toEqual(Array(4).fill("added"));
      // The two refused rows and the fourth: none left before the 429's wait was over.
      expect(later).toHaveLength(3);
      expect(Math.min(...later)).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000);
    } finally {
      await server.close();
    }
  }, 30_000);
});
