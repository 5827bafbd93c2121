/**
 * `add --from` against services that misbehave, each a small server on loopback
 * that the test starts: the real CLI's outcome, stderr and results file.
 */
import { stat } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../client/http-server.js";
import { ensureBuilt, runCli } from "./cli.js";
import { csvOf, finalOutcomes, resultLines, tempDirPerFile, writeInput } from "./helpers.js";

beforeAll(ensureBuilt);
const temp = tempDirPerFile();

const env = (baseUrl: string) => ({
  PETSTORE_BASE_URL: baseUrl,
  PETSTORE_API_KEY: "hostile-key",
  PETSTORE_CONFIG_DIR: temp.dir,
});

describe("a service that refuses every row with a 900 KB message", () => {
  it("gets each message cut in the results file and on stdout", async () => {
    const message = "This pet cannot be taken in. ".repeat(31_035);
    expect(message.length).toBeGreaterThan(900_000);
    const body = JSON.stringify({ code: "invalid_body", message, status: 400 });
    const server = await startServer((_req, res) => {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(body);
    });
    try {
      const input = await writeInput(temp.dir, "refused.csv", csvOf(200, "refused"));
      const results = join(temp.dir, "refused.results");
      const run = await runCli(
        ["add", "--from", input, "--results", results, "--json"],
        env(server.baseUrl),
      );
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain("200 rows refused by the service");
      const lines = [...finalOutcomes(await resultLines(results)).values()];
      expect(lines).toHaveLength(200);
      const start =
        "the service rejected the request: 400 Bad Request: This pet cannot be taken in.";
      for (const line of lines) {
        const error = line.error as { message: string; status: bigint; code: string };
        expect(line.outcome).toBe("failed");
        expect(error.code).toBe("invalid_body");
        expect(error.message.startsWith(start)).toBe(true);
        expect(error.message).toMatch(/… \(\d+ more characters\)$/);
        expect(error.message.length).toBeLessThan(600);
      }
      // 200 lines of well under 1 KB each, where whole messages made 180 MB.
      expect((await stat(results)).size).toBeLessThan(200 * 1024);
      expect(run.stdout.length).toBeLessThan(200 * 1024);
    } finally {
      await server.close();
    }
  });
});

describe("a service that answers 201 with a body that is not a pet", () => {
  it("gives each row the id its Location names (-q prints them in row order)", async () => {
    let next = 100;
    const server = await startServer((_req, res) => {
      res.writeHead(201, { "content-type": "text/html", location: `/v1/pets/${++next}` });
      res.end("<html>created</html>");
    });
    try {
      const input = await writeInput(temp.dir, "located.csv", csvOf(3, "located"));
      const results = join(temp.dir, "located.results");
      const run = await runCli(
        ["add", "--from", input, "--results", results, "-q", "--concurrency", "1"],
        env(server.baseUrl),
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe("101\n102\n103\n");
      const lines = [...finalOutcomes(await resultLines(results)).values()];
      expect(lines.map((line) => [line.outcome, line.id])).toEqual([
        ["added", 101n],
        ["added", 102n],
        ["added", 103n],
      ]);
    } finally {
      await server.close();
    }
  });
});

describe("a service that takes connections and never answers", () => {
  it("stops the run after 3 timeouts in a row, leaving the rows not sent for --resume", async () => {
    const hung = await startServer(() => undefined);
    const input = await writeInput(temp.dir, "hung.csv", csvOf(20, "hung"));
    const results = join(temp.dir, "hung.results");
    try {
      const run = await runCli(
        ["add", "--from", input, "--results", results, "--timeout", "0.5"],
        env(hung.baseUrl),
      );
      expect(run.code, run.stderr).toBe(7);
      expect(run.stderr).toContain(
        "the outcome of 3 rows is unknown (rows 1, 2, 3): they were sent, but no answer came; 3 requests in a row got no answer within the timeout",
      );
      expect(run.stderr).toContain("the run stops here, 17 rows not sent");
      expect(run.stderr).toContain("0 added, 0 invalid, 0 failed, 3 outcome unknown, 17 not sent");
      expect(hung.requests).toHaveLength(3);
      const lines = finalOutcomes(await resultLines(results));
      expect([...lines.keys()]).toEqual([1, 2, 3]);
      expect([...lines.values()].every((line) => line.outcome === "unknown")).toBe(true);
    } finally {
      await hung.close();
    }
    let next = 0;
    const working = await startServer((_req, res, body) => {
      res.writeHead(201, { "content-type": "application/json" });
      res.end(`{"id":${++next},${body.slice(1)}`);
    });
    try {
      const resumed = await runCli(
        ["add", "--from", input, "--resume", results],
        env(working.baseUrl),
      );
      expect(resumed.code, resumed.stderr).toBe(7);
      expect(resumed.stderr).toContain("17 added, 0 invalid, 0 failed, 3 outcome unknown");
      const names = working.requests.map((request) => JSON.parse(request.body).name as string);
      expect(names.sort()).toEqual(Array.from({ length: 17 }, (_, i) => `hung-${i + 4}`).sort());
    } finally {
      await working.close();
    }
  });
});

/** Long enough to tell from the 503's 1 s, short enough for a test. */
const RETRY_AFTER_S = 3;

const limits = {
  "content-type": "application/json",
  "x-ratelimit-limit": "1000",
  "x-ratelimit-remaining": "900",
  "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600),
};

/**
 * Two pauses from two requests in flight: a 429 with a Retry-After, then a 503
 * whose own wait is shorter. Nothing may be sent before the longer one is over
 * (test/bulk/pacer.test.ts checks the same rule at the pacer, on a fake clock).
 */
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
      const input = await writeInput(temp.dir, "pauses.csv", csvOf(4, "pause"));
      const results = join(temp.dir, "pauses.results");
      const run = await runCli(
        ["add", "--from", input, "--results", results, "--concurrency", "2"],
        env(server.baseUrl),
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
  });
});
