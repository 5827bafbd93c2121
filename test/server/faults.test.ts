import { afterEach, describe, expect, it } from "vitest";
import { faultInjector, FaultSettings } from "../../src/server/faults.js";
import { planServe, type ServeFlags } from "../../src/server/serve-options.js";
import { call, startTestServer } from "./http.js";

const KEY = "fault-key";
const NEW_PET = '{"name":"Ghost","categoryId":3}';
let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function errorCodeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe("fault injection over HTTP", () => {
  it("answers 503 fault_injected with Retry-After and the rate-limit headers", async () => {
    server = await startTestServer({ keys: [KEY], faults: { failRate: 1, failMode: "503" } });
    const answer = await call(server.url, "/v1/pets", { key: KEY });
    expect(answer.status).toBe(503);
    expect(answer.headers["retry-after"]).toBe("1");
    expect(answer.headers["x-ratelimit-remaining"]).toBe("59");
    expect(JSON.parse(answer.text)).toEqual({
      code: "fault_injected",
      message: expect.stringContaining("unavailable") as string,
      status: 503,
    });
  });

  it("resets the connection before a POST is processed", async () => {
    server = await startTestServer({ keys: [KEY], faults: { failRate: 1, failMode: "reset" } });
    const code = await errorCodeOf(call(server.url, "/v1/pets", { key: KEY, body: NEW_PET }));
    expect(["ECONNRESET", "EPIPE"]).toContain(code);
    expect(server.store.size).toBe(0);
    expect(server.stats().resets).toBe(1);
    expect(server.stats().responses).toBe(0);
  });

  it("logs a reset as such", async () => {
    server = await startTestServer({
      keys: [KEY],
      quiet: false,
      faults: { failRate: 1, failMode: "reset-after" },
    });
    await errorCodeOf(call(server.url, "/v1/pets", { key: KEY }));
    await server.close();
    expect(server.logText()).toMatch(/ GET \/v1\/pets reset [0-9.]+ms\n/);
  });

  it("processes a POST, then resets without answering (outcome unknown)", async () => {
    server = await startTestServer({
      keys: [KEY],
      faults: { failRate: 1, failMode: "reset-after" },
    });
    const code = await errorCodeOf(call(server.url, "/v1/pets", { key: KEY, body: NEW_PET }));
    expect(["ECONNRESET", "EPIPE"]).toContain(code);
    expect(server.store.size).toBe(1);
    expect(server.store.listJson({ limit: 1 })).toContain('"name":"Ghost"');
  });

  it("never faults 401, 404, 405 or the OpenAPI document", async () => {
    server = await startTestServer({ keys: [KEY], faults: { failRate: 1, failMode: "reset" } });
    expect((await call(server.url, "/v1/pets")).status).toBe(401);
    expect((await call(server.url, "/v1/other", { key: KEY })).status).toBe(404);
    expect((await call(server.url, "/v1/pets", { key: KEY, method: "PUT" })).status).toBe(405);
    expect((await call(server.url, "/v1/openapi.json")).status).toBe(200);
  });

  it("repeats the same faults for the same seed", async () => {
    const statuses: number[][] = [];
    for (let run = 0; run < 2; run++) {
      server = await startTestServer({
        keys: [`${KEY}:enterprise`],
        faults: { failRate: 0.5, failMode: "503", seed: 42 },
      });
      const seen: number[] = [];
      for (let i = 0; i < 24; i++)
        seen.push((await call(server.url, "/v1/pets", { key: KEY })).status);
      statuses.push(seen);
      await server.close();
      server = undefined;
    }
    expect(statuses[0]).toEqual(statuses[1]);
    expect(new Set(statuses[0])).toEqual(new Set([200, 503]));
  });

  it("still answers after an injected delay", async () => {
    server = await startTestServer({ keys: [KEY], faults: { latency: { minMs: 5, maxMs: 20 } } });
    const answer = await call(server.url, "/v1/pets", { key: KEY, body: NEW_PET });
    expect(answer.status).toBe(201);
  });
});

describe("the fault plan", () => {
  it("draws delays within the range and failures near the rate, the same for one seed", () => {
    const plans = (seed: number) => {
      const next = faultInjector({
        latencyMs: { min: 10, max: 30 },
        failRate: 0.25,
        failMode: "reset",
        seed,
      })!;
      return Array.from({ length: 2000 }, () => next());
    };
    const first = plans(7);
    expect(plans(7)).toEqual(first);
    expect(plans(8)).not.toEqual(first);
    expect(first.every((p) => p.delayMs >= 10 && p.delayMs <= 30)).toBe(true);
    expect(new Set(first.map((p) => p.delayMs)).size).toBe(21);
    const failures = first.filter((p) => p.failure === "reset").length;
    expect(failures).toBeGreaterThan(400);
    expect(failures).toBeLessThan(600);
  });

  it("is inactive without a rate or a latency", () => {
    const injector = (settings: object) => faultInjector(FaultSettings.parse(settings));
    expect(injector({})).toBeUndefined();
    expect(injector({ failRate: 0.1 })).toBeDefined();
    expect(injector({ latencyMs: { min: 0, max: 1 } })).toBeDefined();
  });
});

/** The fault settings `serve` is given by its flags. */
const faultsOf = (flags: Partial<ServeFlags>) =>
  planServe({ file: "f.json", port: "0", host: "127.0.0.1", key: ["k"], ...flags }, {}).options
    .faults;
const parseLatency = (latency: string) => faultsOf({ latency })?.latencyMs;
const parseFailRate = (failRate: string) => faultsOf({ failRate })?.failRate;
const parseFailMode = (failMode: string) => faultsOf({ failRate: "0", failMode })?.failMode;
const parseFaultSeed = (faultSeed: string) => faultsOf({ faultSeed })?.seed;

describe("fault flag parsing", () => {
  it.each([
    ["250", { min: 250, max: 250 }],
    ["0", { min: 0, max: 0 }],
    ["100-400", { min: 100, max: 400 }],
    [" 5 - 9 ", { min: 5, max: 9 }],
  ])("reads --latency %j", (text, expected) => {
    expect(parseLatency(text)).toEqual(expected);
  });

  it.each(["", "-5", "400-100", "fast", "1.5", "10-", "999999999"])(
    "rejects --latency %j naming the option",
    (text) => {
      expect(() => parseLatency(text)).toThrow(/^--latency must be/);
    },
  );

  it.each([
    ["0", 0],
    ["1", 1],
    ["0.25", 0.25],
    [".5", 0.5],
    ["1.0", 1],
  ])("reads --fail-rate %j", (text, expected) => {
    expect(parseFailRate(text)).toBe(expected);
  });

  it.each(["", "1.5", "-0.1", "half", "NaN", "1e-1"])("rejects --fail-rate %j", (text) => {
    expect(() => parseFailRate(text)).toThrow(/^--fail-rate must be a number from 0 to 1/);
  });

  it("reads --fail-mode and --fault-seed", () => {
    expect(parseFailMode("503")).toBe("503");
    expect(parseFailMode("Reset-After")).toBe("reset-after");
    expect(() => parseFailMode("drop")).toThrow(
      "--fail-mode must be one of 503, reset, reset-after",
    );
    expect(() => faultsOf({ failMode: "reset" })).toThrow(
      "--fail-mode needs --fail-rate (the share of requests that fail)",
    );
    expect(parseFaultSeed("42")).toBe(42);
    expect(() => parseFaultSeed("-1")).toThrow(/^--fault-seed/);
    expect(() => parseFaultSeed("4294967296")).toThrow(/^--fault-seed/);
  });
});
