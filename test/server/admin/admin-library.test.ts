/** The control plane from the library: startServer's methods and its checked options. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { parseJson } from "../../../src/schema/json.js";
import type { Pet } from "../../../src/schema/pet.js";
import { ServerConfigError } from "../../../src/server/config-error.js";
import { startServer, type RunningServer } from "../../../src/server/server.js";
import { call, manualClock } from "../http.js";

const KEY = "library-key";
let server: RunningServer | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function start(options: Parameters<typeof startServer>[0] = {}) {
  server = await startServer({ quiet: true, keys: [`${KEY}:enterprise`], ...options });
  return server;
}
const names = async (url: string) =>
  (parseJson((await call(url, "/v1/pets?limit=100", { key: KEY })).text) as Pet[]).map(
    (p) => p.name,
  );

describe("startServer({ pets })", () => {
  it("starts from the given pets (ids as numbers or bigints), and reset() goes back to them", async () => {
    const { url, reset } = await start({
      pets: [
        { id: 2, name: "Rex", categoryId: 1, status: "sold" },
        { id: 10n, name: "Nala", categoryId: 9223372036854775807n },
      ],
    });
    expect(await names(url)).toEqual(["Rex", "Nala"]);
    expect((await call(url, "/v1/pets/10", { key: KEY })).text).toBe(
      '{"id":10,"name":"Nala","categoryId":9223372036854775807}',
    );
    await call(url, "/v1/pets", { key: KEY, body: '{"name":"Added","categoryId":1}' });
    expect(await names(url)).toEqual(["Rex", "Nala", "Added"]);
    await reset();
    expect(await names(url)).toEqual(["Rex", "Nala"]);
  });

  it.each([
    [[{ id: 1, name: " ", categoryId: 1 }], "startServer: pets.0: name must be a non-blank string"],
    [
      [
        { id: 1, name: "A", categoryId: 1 },
        { id: 2, name: "B" },
      ],
      "startServer: pets.1: categoryId is required",
    ],
    [
      [{ id: 1.5, name: "A", categoryId: 1 }],
      "startServer: pets.0: id must be an integer from -9223372036854775808 to 9223372036854775807; got 1.5",
    ],
    [
      [{ id: 1, name: "A", categoryId: 1, colour: "red" }],
      "startServer: pets.0: colour unknown field; allowed: id, name, categoryId, status",
    ],
    [[{ name: "A", categoryId: 1 }], "startServer: pets.0: id is required"],
    [[5], "startServer: pets.0 must be a pet {id, name, categoryId, status?}; got 5"],
    [
      [{ id: 2n ** 63n, name: "A", categoryId: 1 }],
      "startServer: pets.0: id must be an integer from",
    ],
    [
      [
        { id: 1, name: "A", categoryId: 1 },
        { id: 1, name: "B", categoryId: 1 },
      ],
      "share the id 1",
    ],
  ])("refuses pets %#, naming the pet and field", async (pets, message) => {
    await expect(start({ pets: pets as never })).rejects.toThrow(message);
  });

  it("refuses pets with a file, a store or a seed", async () => {
    await expect(start({ pets: [], seed: 3 })).rejects.toThrow(
      "startServer: pets start an in-memory store and cannot be given with seed",
    );
    await expect(start({ pets: [], file: "x.json" })).rejects.toThrow(/cannot be given with file/);
  });
});

describe("checked options", () => {
  it.each([
    [
      { faults: { latency: 50 } },
      "startServer: faults.latency must be {minMs, maxMs}, milliseconds from 0 to 600000; got 50",
    ],
    [
      { faults: { latencyMs: 50 } },
      'startServer: faults.latencyMs must be null (no delay) or {"min": ms, "max": ms}; got 50',
    ],
    [
      { faults: { latencyMS: 50 } },
      "startServer: faults.latencyMS is not an option; options of faults: latencyMs, failRate, failMode, seed, latency",
    ],
    [
      { faults: { latency: { minMs: 1, maxMs: 2, avg: 1 } } },
      "startServer: faults.latency.avg is not an option; options of faults.latency: minMs, maxMs",
    ],
    [
      { pets: [{ id: 1, name: "Rex", categoryId: 1, colour: "red" }] },
      "startServer: pets.0: colour unknown field; allowed: id, name, categoryId, status",
    ],
    [
      { faults: { latencyMs: { min: 1, max: 2 }, latency: { minMs: 1, maxMs: 2 } } },
      "startServer: faults: give latencyMs or latency (its old name), not both",
    ],
    [
      { faults: { failRate: "0.5" } },
      'startServer: faults.failRate must be a number from 0 to 1; got the string "0.5"',
    ],
    [
      { faults: { latency: { minMs: 9, maxMs: 1 } } },
      "startServer: faults.latency.maxMs must be an integer from latency.minMs to 600000; got 1",
    ],
    [
      { latency: 50 },
      "startServer: latency is not an option; options: file, store, seed, pets, port, host, keys, clock",
    ],
    [{ quiet: "yes" }, 'startServer: quiet must be true or false; got "yes"'],
    [{ keys: "k:pro" }, "startServer: keys must be an array of key specs"],
    [
      { keys: [{ key: "k", plan: "gold" }] },
      'startServer: keys.0: plan must be one of free, pro, business, enterprise; got "gold"',
    ],
    [
      { keys: ["k:gold"] },
      'startServer: keys.0: plan must be one of free, pro, business, enterprise; got "gold"',
    ],
    [
      { keys: [{ key: "k", plan: "pro", limits: { perMinute: 1, perDay: 2 } }] },
      "custom limits are for the enterprise plan only",
    ],
    [
      { clock: Date.now },
      "startServer: clock must be an object with now(), milliseconds since the Unix epoch; got a function",
    ],
    [
      { ban: { banAfter: -1 } },
      "startServer: ban.banAfter must be an integer from 0 to 1000000; got -1",
    ],
    [
      { timeouts: { headersTimeout: 5 } },
      "startServer: timeouts.headersTimeout is not an option; options of timeouts: headersTimeoutMs",
    ],
    [
      { journalSize: 100_001 },
      "startServer: journalSize must be an integer from 0 to 100000; got 100001",
    ],
    [{ log: console.log }, "startServer: log must be an object with write(text); got a function"],
  ])("%j throws a ServerConfigError naming the option", async (options, message) => {
    const error = await start(options as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ServerConfigError);
    expect((error as Error).message).toContain(message);
  });

  it("accepts the keys startServer hands out, and spec objects", async () => {
    const first = await start({
      keys: [
        "a-key:pro",
        { key: "b-key", plan: "enterprise", limits: { perMinute: 5, perDay: 9 } },
      ],
    });
    const keys = first.keys;
    await first.close();
    const second = await start({ keys });
    expect(second.keys).toEqual(keys);
  });
});

describe("the RunningServer's control methods", () => {
  it("requests(filter) and clearRequests(): the journal, checked filters", async () => {
    const { url, requests, clearRequests } = await start();
    await call(url, "/v1/pets", { key: KEY });
    await call(url, "/v1/pets", { key: KEY, body: '{"name":"Rex","categoryId":1}' });
    expect(requests().map((r) => r.method)).toEqual(["GET", "POST"]);
    expect(requests({ method: "post" })).toEqual([
      expect.objectContaining({
        id: 2,
        status: 201,
        body: '{"name":"Rex","categoryId":1}',
        plan: "enterprise",
      }),
    ]);
    expect(requests({ status: 201 })).toHaveLength(1);
    expect(requests({ status: "2xx", path: "/v1/*" })).toHaveLength(2);
    expect(requests({ since: new Date(Date.now() + 60_000) })).toEqual([]);
    expect(() => requests({ status: 999 })).toThrow(
      "requests: status must be an HTTP status from 100 to 599",
    );
    expect(() => requests({ verb: "GET" } as never)).toThrow(
      "requests: verb is not an option; options: method, path, status, since",
    );
    expect(() => requests({ since: true } as never)).toThrow(
      'requests: since must be an ISO 8601 time (2030-01-01T00:00:00Z) or Unix milliseconds; got "true"',
    );
    clearRequests();
    expect(requests()).toEqual([]);
  });

  it("clock.advance() moves the windows; a bad value throws", async () => {
    const clock = manualClock(Date.UTC(2030, 0, 15, 12, 0, 30));
    const running = await start({ keys: ["one:enterprise:1/100"], clock });
    expect(running.clock.now().toISOString()).toBe("2030-01-15T12:00:30.000Z");
    expect((await call(running.url, "/v1/pets", { key: "one" })).status).toBe(200);
    expect((await call(running.url, "/v1/pets", { key: "one" })).status).toBe(429);
    running.clock.advance(30);
    expect(running.clock.offsetSeconds).toBe(30);
    expect(running.clock.now().toISOString()).toBe("2030-01-15T12:01:00.000Z");
    expect((await call(running.url, "/v1/pets", { key: "one" })).status).toBe(200);
    expect(() => running.clock.advance(-1)).toThrow(
      "clock.advance: advanceSeconds must be a number of seconds from 0",
    );
    expect(() => running.clock.advance("60" as never)).toThrow(/clock.advance/);
  });

  it("setFaults() replaces the faults; a mistyped one throws naming it", async () => {
    const running = await start();
    running.setFaults({ failRate: 1 });
    expect((await call(running.url, "/v1/pets", { key: KEY })).status).toBe(503);
    running.setFaults({});
    expect((await call(running.url, "/v1/pets", { key: KEY })).status).toBe(200);
    expect(() => running.setFaults({ latency: 50 } as never)).toThrow(
      "setFaults: latency must be {minMs, maxMs}, milliseconds from 0 to 600000; got 50",
    );
  });

  it("addKey() and removeKey(): keys at run time, reflected in keys", async () => {
    const running = await start();
    const entry = running.addKey("runtime-key:pro");
    expect(entry).toMatchObject({ plan: "pro", limit: 300, remaining: 300 });
    expect((await call(running.url, "/v1/pets", { key: "runtime-key" })).status).toBe(200);
    expect(running.keys.map((k) => k.key)).toEqual([KEY, "runtime-key"]);
    running.addKey({ key: "object-key", plan: "enterprise", limits: null });
    expect((await call(running.url, "/v1/pets", { key: "object-key" })).status).toBe(200);
    expect(running.removeKey("runtime-key")).toBe(true);
    expect(running.removeKey("runtime-key")).toBe(false);
    expect((await call(running.url, "/v1/pets", { key: "runtime-key" })).status).toBe(401);
    expect(() => running.addKey("bad key")).toThrow(/^addKey: key must be 1 to 512/);
    expect(() =>
      running.addKey({ key: "k", plan: "pro", limits: { perMinute: 1, perDay: 1 } }),
    ).toThrow("custom limits are for the enterprise plan only");
    expect(() => running.removeKey(5 as never)).toThrow("removeKey: must be a string; got 5");
  });

  it("reset() of a file store goes back to the file as it was", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "petstore-library-reset-"));
    dirs.push(dir);
    const running = await start({ file: path.join(dir, "pets.json"), seed: 2 });
    await call(running.url, "/v1/pets", { key: KEY, body: '{"name":"Gone","categoryId":1}' });
    expect(running.store.size).toBe(3);
    await running.reset();
    expect(running.store.size).toBe(2);
    expect(running.adminUrl).toBe(running.url.replace(/\/v1$/, "/__admin"));
  });
});
