/** The control plane over HTTP: health, reset, clock, faults, keys, methods and paths. */
import { Agent, get as httpGet } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { parseJson } from "../../../src/schema/json.js";
import type { Pet } from "../../../src/schema/pet.js";
import { MAX_ADVANCE_SECONDS } from "../../../src/server/admin/clock.js";
import { ServerConfigError } from "../../../src/server/config-error.js";
import { call, manualClock, startTestServer, type Answer } from "../http.js";
import { admin, expectError } from "./admin-http.js";

const KEY = "admin-test-key";
/** 12:00:01 UTC. */
const NOON = Date.UTC(2030, 0, 15, 12, 0, 1);

let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: Parameters<typeof startTestServer>[0] = {}) {
  server = await startTestServer({ keys: [`${KEY}:enterprise`], seed: 3, ...options });
  return server;
}

const addPet = (url: string, name: string, key = KEY) =>
  call(url, "/v1/pets", { key, body: JSON.stringify({ name, categoryId: 1 }) });
const listIds = async (url: string) =>
  (parseJson((await call(url, "/v1/pets?limit=100", { key: KEY })).text) as Pet[]).map(
    (pet) => pet.id,
  );
const remaining = (answer: Answer) => Number(answer.headers["x-ratelimit-remaining"]);

describe("GET /__admin/health", () => {
  it("answers without a key, uses no quota and counts the pets", async () => {
    const { url } = await start({ keys: ["free-key"] });
    const health = await admin(url, "/health");
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: "ok", pets: 3, uptimeSeconds: expect.any(Number) });
    expect(Number.isInteger(health.body.uptimeSeconds)).toBe(true);
    expect(health.headers["x-ratelimit-limit"]).toBeUndefined();
    expect(health.headers["cache-control"]).toBe("no-store");
    for (let i = 0; i < 5; i++) await admin(url, "/health");
    expect(remaining(await call(url, "/v1/pets", { key: "free-key" }))).toBe(59);
    const head = await admin(url, "/health", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
  });
});

describe("POST /__admin/reset", () => {
  it("brings back the pets of the start; ids continue above every id given out", async () => {
    const { url } = await start();
    await addPet(url, "Gone");
    await addPet(url, "Gone too");
    expect(await listIds(url)).toEqual([1n, 2n, 3n, 4n, 5n]);
    const reset = await admin(url, "/reset", { method: "POST" });
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ status: "reset", pets: 3 });
    expect(await listIds(url)).toEqual([1n, 2n, 3n]);
    expect((await call(url, "/v1/pets/4", { key: KEY })).status).toBe(404);
    const again = await addPet(url, "Again");
    expect(parseJson(again.text)).toMatchObject({ id: 6n, name: "Again" });
  });

  it("clears rate-limit windows, bans (of keys and of addresses) and the journal", async () => {
    const clock = manualClock(NOON);
    const { url } = await start({
      keys: ["limited:enterprise:2/1000", KEY + ":enterprise"],
      clock,
      ban: { banAfter: 1 },
    });
    await call(url, "/v1/pets", { key: "limited" });
    await call(url, "/v1/pets", { key: "limited" });
    expect((await call(url, "/v1/pets", { key: "limited" })).status).toBe(429);
    const banned = await call(url, "/v1/pets", { key: "limited" });
    expect(JSON.parse(banned.text)).toMatchObject({ code: "banned" });
    // No key: limited by address at free-plan limits (60 a minute).
    for (let i = 0; i < 62; i++) await call(url, "/v1/pets");
    const addressBanned = await call(url, "/v1/pets");
    expect(JSON.parse(addressBanned.text)).toMatchObject({ code: "banned" });
    expect((await admin(url, "/requests")).body.requests).not.toEqual([]);

    expect((await admin(url, "/reset", { method: "POST", json: {} })).status).toBe(200);
    const after = await call(url, "/v1/pets", { key: "limited" });
    expect(after.status).toBe(200);
    expect(remaining(after)).toBe(1);
    expect((await call(url, "/v1/pets")).status).toBe(401);
    expect((await admin(url, "/requests")).body.requests).toEqual([
      expect.objectContaining({ plan: "enterprise", status: 200 }),
      expect.objectContaining({ plan: null, status: 401 }),
    ]);
  });

  it("takes no fields: a body with one is a 400, a body that is not JSON a 415", async () => {
    const { url } = await start();
    await addPet(url, "Stays");
    const message = expectError(
      await admin(url, "/reset", { method: "POST", json: { pets: [] } }),
      400,
      "invalid_admin_request",
    );
    expect(message).toContain("takes no fields");
    expectError(
      await admin(url, "/reset", { method: "POST", body: "x", contentType: "text/plain" }),
      415,
      "unsupported_media_type",
    );
    expectError(await admin(url, "/reset", { method: "POST", body: "[1," }), 400, "invalid_json");
    expect(await listIds(url)).toHaveLength(4);
  });
});

describe("/__admin/clock", () => {
  it("shows the fake's time and moves it forward", async () => {
    const clock = manualClock(NOON);
    const { url } = await start({ clock });
    expect((await admin(url, "/clock")).body).toEqual({
      now: new Date(NOON).toISOString(),
      nowMs: NOON,
      offsetSeconds: 0,
    });
    const moved = await admin(url, "/clock", { method: "POST", json: { advanceSeconds: 90.5 } });
    expect(moved.status).toBe(200);
    expect(moved.body).toEqual({
      now: new Date(NOON + 90_500).toISOString(),
      nowMs: NOON + 90_500,
      offsetSeconds: 90.5,
    });
    const again = await admin(url, "/clock", { method: "POST", json: { advanceSeconds: 10 } });
    expect(again.body.offsetSeconds).toBe(100.5);
  });

  it("moves rate-limit windows, bans, Date and X-RateLimit-Reset with it", async () => {
    const { url } = await start({ keys: ["limited:enterprise:1/1000"], ban: { banAfter: 1 } });
    const first = await call(url, "/v1/pets", { key: "limited" });
    expect(first.status).toBe(200);
    expect(first.headers.date).toBeDefined();
    const reset = Number(first.headers["x-ratelimit-reset"]);
    expect((await call(url, "/v1/pets", { key: "limited" })).status).toBe(429);
    const banned = await call(url, "/v1/pets", { key: "limited" });
    expect(JSON.parse(banned.text)).toMatchObject({ code: "banned" });
    const banEnd = Number(banned.headers["x-ratelimit-reset"]);

    // Past the ban (600 s), as a client waiting its Retry-After would be.
    const seconds = banEnd - Date.now() / 1000 + 1;
    const moved = await admin(url, "/clock", { method: "POST", json: { advanceSeconds: seconds } });
    const now = moved.body.nowMs as number;
    const after = await call(url, "/v1/pets", { key: "limited" });
    expect(after.status).toBe(200);
    const date = Date.parse(after.headers.date!);
    expect(Math.abs(date - now)).toBeLessThan(5_000);
    expect(Number(after.headers["x-ratelimit-reset"])).toBe((Math.floor(now / 60_000) + 1) * 60);
    expect(Number(after.headers["x-ratelimit-reset"])).toBeGreaterThanOrEqual(reset + 600);
  });

  it.each([
    [{ advanceSeconds: -1 }, "advanceSeconds must be a number of seconds from 0"],
    [
      { advanceSeconds: "60" },
      'advanceSeconds must be a number of seconds from 0 to 316224000 (the clock only moves forward); got the string "60"',
    ],
    [{ advanceSeconds: 316_224_001 }, "got 316224001"],
    [{}, "advanceSeconds is required"],
    [{ advanceSeconds: 1, back: true }, "back is not a field; fields: advanceSeconds"],
    [[60], 'the body must be a JSON object {"advanceSeconds": N}; got an array'],
  ])("refuses %j with a 400 naming the field", async (json, expected) => {
    const { url } = await start();
    const message = expectError(
      await admin(url, "/clock", { method: "POST", json }),
      400,
      "invalid_admin_request",
    );
    expect(message).toContain(expected);
    expect((await admin(url, "/clock")).body.offsetSeconds).toBe(0);
  });

  it("stops at 9999-01-01: a step past it is a 400, and the clock, journal and Date keep working", async () => {
    const running = await start({ keys: [`${KEY}:free`], ban: { banAfter: 1 } });
    const { url } = running;
    // Ten-year steps, as a test suite would take them, until one is refused.
    let refused: unknown;
    for (let step = 0; step < 30_000 && refused === undefined; step++) {
      try {
        running.clock.advance(MAX_ADVANCE_SECONDS);
      } catch (error) {
        refused = error;
      }
    }
    expect(refused).toBeInstanceOf(ServerConfigError);
    expect((refused as Error).message).toContain("would pass 9999-01-01T00:00:00.000Z");
    const past = await admin(url, "/clock", { method: "POST", json: { advanceSeconds: 3e8 } });
    const message = expectError(past, 400, "invalid_admin_request");
    expect(message).toMatch(/^advanceSeconds: moving the clock 300000000 seconds from 99\d\d-/);
    const left = Number(/(\d+) seconds are left/.exec(message)![1]);
    // What is left can still be taken.
    const last = await admin(url, "/clock", { method: "POST", json: { advanceSeconds: left } });
    expect(last.status).toBe(200);
    expect(last.body.now).toMatch(/^9998-12-31T23:59:5\d/);
    for (let i = 0; i < 3; i++) await call(url, "/v1/pets", { key: KEY });
    const answer = await call(url, "/v1/pets", { key: KEY });
    expect(answer.headers.date).toMatch(/^\w{3}, 31 Dec 9998 23:59:5\d GMT$/);
    const resetAt = Number(answer.headers["x-ratelimit-reset"]) * 1000;
    expect(new Date(resetAt).toISOString()).toMatch(/^(9998-12-31|9999-01-01)T/);
    expect((await admin(url, "/clock")).status).toBe(200);
    const journal = await admin(url, "/requests");
    expect(journal.status).toBe(200);
    expect((journal.body.requests as Array<{ time: string }>)[0]!.time).toMatch(/^9998-12-31T/);
  });

  it("refuses an empty body", async () => {
    const { url } = await start();
    const message = expectError(
      await admin(url, "/clock", { method: "POST", body: "" }),
      400,
      "invalid_admin_request",
    );
    expect(message).toContain("the body is empty");
  });
});

describe("/__admin/faults", () => {
  it("shows the flags' settings and replaces them at run time", async () => {
    const { url } = await start({ faults: { latency: { minMs: 0, maxMs: 5 }, seed: 7 } });
    expect((await admin(url, "/faults")).body).toEqual({
      latencyMs: { min: 0, max: 5 },
      failRate: 0,
      failMode: "503",
      seed: 7,
    });
    const put = await admin(url, "/faults", {
      method: "PUT",
      json: { latencyMs: null, failRate: 1, failMode: "503" },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      latencyMs: { min: 0, max: 0 },
      failRate: 1,
      failMode: "503",
      seed: null,
    });
    const failed = await call(url, "/v1/pets", { key: KEY });
    expect(failed.status).toBe(503);
    expect(JSON.parse(failed.text)).toMatchObject({ code: "fault_injected" });
    // An omitted setting takes its default: no faults at all.
    expect((await admin(url, "/faults", { method: "PUT", json: {} })).body).toEqual({
      latencyMs: { min: 0, max: 0 },
      failRate: 0,
      failMode: "503",
      seed: null,
    });
    expect((await call(url, "/v1/pets", { key: KEY })).status).toBe(200);
  });

  it("turns faults on for a server started without any, reset mode included", async () => {
    const { url } = await start();
    await admin(url, "/faults", { method: "PUT", json: { failRate: 1, failMode: "reset" } });
    await expect(call(url, "/v1/pets", { key: KEY })).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect((await admin(url, "/requests?status=5xx")).body.requests).toEqual([]);
    expect((await admin(url, "/requests")).body.requests).toEqual([
      expect.objectContaining({ path: "/v1/pets", status: null }),
    ]);
  });

  it.each([
    [{ failRate: 2 }, "failRate must be a number from 0 to 1; got 2"],
    [{ failMode: "slow" }, 'failMode must be one of 503, reset, reset-after; got "slow"'],
    [
      { latencyMs: { min: 50, max: 10 } },
      "latencyMs.max must be an integer of milliseconds from 0 to 600000, at least latencyMs.min; got 10",
    ],
    [{ latencyMs: 50 }, 'latencyMs must be null (no delay) or {"min": ms, "max": ms}; got 50'],
    [{ latencyMs: { min: 1 } }, "latencyMs.max is required"],
    [
      { latencyMs: { min: 1, max: 2, avg: 1 } },
      "latencyMs.avg is not a field; fields of latencyMs: min, max",
    ],
    [{ latency: 5 }, "latency is not a field; fields: latencyMs, failRate, failMode, seed"],
    [
      { seed: -1 },
      "seed must be null (a random sequence) or an integer from 0 to 4294967295; got -1",
    ],
  ])("refuses %j with a 400 naming the field, settings unchanged", async (json, expected) => {
    const { url } = await start();
    const message = expectError(
      await admin(url, "/faults", { method: "PUT", json }),
      400,
      "invalid_admin_request",
    );
    expect(message).toContain(expected);
    expect((await admin(url, "/faults")).body.failRate).toBe(0);
  });
});

describe("/__admin/keys", () => {
  it("lists keys redacted with their plans and quota, never the keys themselves", async () => {
    const { url } = await start({ keys: ["psk_abcdefghijklmnopqrstuvwx:pro", "short"] });
    await call(url, "/v1/pets", { key: "psk_abcdefghijklmnopqrstuvwx" });
    const listed = await admin(url, "/keys");
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain("abcdefghijklmnop");
    expect(listed.text).not.toContain('"short"');
    const reset = (Math.floor(Date.now() / 60_000) + 1) * 60;
    expect(listed.body.keys).toEqual([
      {
        key: "psk_…uvwx",
        plan: "pro",
        limit: 300,
        remaining: 299,
        reset: expect.any(Number),
        perMinute: 300,
        perDay: 10_000,
      },
      {
        key: "…",
        plan: "free",
        limit: 60,
        remaining: 60,
        reset: expect.any(Number),
        perMinute: 60,
        perDay: 1000,
      },
    ]);
    expect(
      Math.abs((listed.body.keys as { reset: number }[])[0]!.reset - reset),
    ).toBeLessThanOrEqual(60);
  });

  it("adds a key that works at once, changes a known key's plan, and removes keys", async () => {
    const { url } = await start();
    const added = await admin(url, "/keys", {
      method: "POST",
      json: { key: "added/key+with=", plan: "enterprise", perMinute: 2, perDay: 10 },
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      key: "…",
      plan: "enterprise",
      limit: 2,
      remaining: 2,
      perMinute: 2,
      perDay: 10,
    });
    const used = await call(url, "/v1/pets", { key: "added/key+with=" });
    expect(used.status).toBe(200);
    expect(remaining(used)).toBe(1);

    const changed = await admin(url, "/keys", {
      method: "POST",
      json: { key: "added/key+with=", plan: "pro" },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ plan: "pro", limit: 300, remaining: 299 });
    expect((await admin(url, "/keys")).body.keys).toHaveLength(2);

    expect((await admin(url, "/keys/added%2Fkey%2Bwith%3D", { method: "DELETE" })).status).toBe(
      204,
    );
    const refused = await call(url, "/v1/pets", { key: "added/key+with=" });
    expect(JSON.parse(refused.text)).toMatchObject({ code: "invalid_key" });
    expectError(
      await admin(url, "/keys/added%2Fkey%2Bwith%3D", { method: "DELETE" }),
      404,
      "admin_key_not_found",
    );
    // A key written unencoded in the path is found too.
    await admin(url, "/keys", { method: "POST", json: { key: "a/b" } });
    expect((await admin(url, "/keys/a/b", { method: "DELETE" })).status).toBe(204);
    expect((await admin(url, `/keys/${KEY}`, { method: "DELETE" })).status).toBe(204);
    expect((await admin(url, "/keys")).body.keys).toEqual([]);
  });

  it("a kept-alive connection is refused a removed key and granted an added one at once", async () => {
    const { url } = await start();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = (key: string) =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const req = httpGet(new URL("/v1/pets", url), {
          agent,
          headers: { authorization: `Bearer ${key}` },
        });
        req.on("response", (res) => {
          res
            .resume()
            .on("end", () => resolve({ status: res.statusCode!, reused: req.reusedSocket }));
        });
        req.on("error", reject);
      });
    try {
      expect(await get("late-key")).toEqual({ status: 401, reused: false });
      await admin(url, "/keys", { method: "POST", json: { key: "late-key" } });
      expect(await get("late-key")).toEqual({ status: 200, reused: true });
      expect((await admin(url, "/keys/late-key", { method: "DELETE" })).status).toBe(204);
      expect(await get("late-key")).toEqual({ status: 401, reused: true });
    } finally {
      agent.destroy();
    }
  });

  it.each([
    [{ plan: "pro" }, "key is required"],
    [
      { key: "with:colon" },
      "key must be 1 to 512 of the characters A-Z a-z 0-9 - . _ ~ + / (then optional =)",
    ],
    [{ key: "k", plan: "gold" }, 'plan must be one of free, pro, business, enterprise; got "gold"'],
    [
      { key: "k", plan: "pro", perMinute: 5, perDay: 10 },
      "custom limits are for the enterprise plan only",
    ],
    [{ key: "k", plan: "enterprise", perMinute: 5 }, "perMinute and perDay go together"],
    [
      { key: "k", plan: "enterprise", perMinute: 50, perDay: 10 },
      "the per-day limit is below the per-minute limit",
    ],
    [
      { key: "k", perMinute: 1.5, perDay: 10 },
      "perMinute must be an integer from 1 to 999999999; got 1.5",
    ],
    [{ key: "k", secret: true }, "secret is not a field; fields: key, plan, perMinute, perDay"],
  ])("refuses %j with a 400 naming the problem", async (json, expected) => {
    const { url } = await start();
    const message = expectError(
      await admin(url, "/keys", { method: "POST", json }),
      400,
      "invalid_admin_request",
    );
    expect(message).toContain(expected);
    expect((await admin(url, "/keys")).body.keys).toHaveLength(1);
  });
});

describe("routes and methods", () => {
  it.each([
    ["/health", "POST", "GET, HEAD"],
    ["/reset", "GET", "POST"],
    ["/requests", "PUT", "GET, HEAD, DELETE"],
    ["/clock", "DELETE", "GET, HEAD, POST"],
    ["/faults", "POST", "GET, HEAD, PUT"],
    ["/keys", "OPTIONS", "GET, HEAD, POST"],
    ["/keys/x", "GET", "DELETE"],
  ])("%s refuses %s with 405 and Allow: %s", async (path, method, allow) => {
    const { url } = await start();
    const answer = await admin(url, path, { method });
    expectError(answer, 405, "method_not_allowed");
    expect(answer.headers.allow).toBe(allow);
  });

  it.each(["", "/", "/nope", "/health/x", "/keys/"])("answers 404 for /__admin%s", async (path) => {
    const { url } = await start();
    expect(expectError(await admin(url, path), 404, "not_found")).toContain(
      "/__admin/openapi.json",
    );
  });

  it("is not in the service's OpenAPI document", async () => {
    const { url } = await start();
    const document = await call(url, "/v1/openapi.json");
    expect(document.status).toBe(200);
    expect(document.text).not.toContain("__admin");
  });
});
