/**
 * A Free-plan key pushed past its 60 requests a minute: the real CLI gets a 429,
 * says how long it waits, and sends nothing until Retry-After has passed. The
 * service's clock is shifted so that its current minute ends a few seconds
 * from now (its windows are aligned to that clock), and every request's arrival
 * time is recorded on the server side.
 */
import { createServer, request, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/server/app.js";
import { appOptions } from "../server/app-options.js";
import { KeyInput } from "../../src/server/keys.js";
import { createMemoryStore } from "../../src/server/store/memory.js";
import { runCli, tempDir } from "./harness.js";

const FREE_KEY = "e2e-free-key-0123456789";
const MINUTE_MS = 60_000;
/** How far ahead the service's minute ends when the test starts. */
const LEAD_MS = 5_000;

interface Arrival {
  /** On the service's clock. */
  at: number;
  status: number;
}

let server: Server;
let baseUrl: string;
let offset = 0;
const arrivals: Arrival[] = [];
const serviceNow = () => Date.now() + offset;

beforeAll(async () => {
  const app = createApp(
    createMemoryStore([]),
    appOptions({
      keys: [KeyInput.parse(`${FREE_KEY}:free`)],
      clock: { now: serviceNow },
    }),
  );
  server = createServer((req, res) => {
    const at = serviceNow();
    res.on("finish", () => arrivals.push({ at, status: res.statusCode }));
    app(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function getStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { authorization: `Bearer ${FREE_KEY}` } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("a Free-plan key past its limit", () => {
  it("waits out Retry-After in real time, then succeeds", async () => {
    const target = Date.now() + LEAD_MS;
    offset = (MINUTE_MS - (target % MINUTE_MS)) % MINUTE_MS;
    const windowEnd = Math.ceil(serviceNow() / MINUTE_MS) * MINUTE_MS;

    const statuses = await Promise.all(
      Array.from({ length: 60 }, () => getStatus(`${baseUrl}/pets?limit=1`)),
    );
    expect(statuses.every((status) => status === 200)).toBe(true);
    // Still inside the same minute, or the CLI would not be limited at all.
    expect(serviceNow()).toBeLessThan(windowEnd - 1_000);
    const before = arrivals.length;

    const home = tempDir();
    try {
      const run = await runCli(["list", "--json", "--verbose"], {
        env: {
          PETSTORE_BASE_URL: baseUrl,
          PETSTORE_API_KEY: FREE_KEY,
          PETSTORE_CONFIG_DIR: home.path,
        },
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe("[]\n");
      expect(run.stderr).toMatch(/^rate limited; retrying in [1-6](\.[0-9])? s, attempt 2 of 5$/m);
      const retryAfter = Number(/-> 429 .*retry-after (\d+)/.exec(run.stderr)?.[1]);
      expect(retryAfter).toBeGreaterThan(0);

      const [limited, retried, ...more] = arrivals.slice(before);
      expect(more).toEqual([]);
      expect(limited?.status).toBe(429);
      expect(retried?.status).toBe(200);
      // Nothing was sent before Retry-After had passed, nor before the window reset.
      expect(retried!.at - limited!.at).toBeGreaterThanOrEqual(retryAfter * 1000);
      expect(retried!.at).toBeGreaterThanOrEqual(windowEnd);
    } finally {
      home.remove();
    }
  });
});
