/** The verdict on the app under test: a naive client breaks each rule once per event, a careful one none. */
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { call, startTestServer } from "./http.js";
import { admin } from "./admin/admin-http.js";

const KEY = "verdict-key-0123456789";
const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(options: Parameters<typeof startTestServer>[0] = {}) {
  const server = await startTestServer({
    keys: [KEY],
    seed: 2,
    sunset: Date.now() + 3_600_000,
    ...options,
  });
  servers.push(server);
  return server;
}

const PET = JSON.stringify({ name: "Twice", categoryId: 1 });

describe("the verdict", () => {
  it("names each violation of a naive client once per event", async () => {
    const server = await start({ ban: { banAfter: 1, banMs: 60_000 } });
    const send = (path: string, options = {}) =>
      call(server.url, path, { key: KEY, ...options }).then(
        (answer) => answer.status,
        () => null,
      );
    expect(await send("/v1/pets/1")).toBe(200);
    expect(await call(server.url, "/v1/pets").then((answer) => answer.status)).toBe(401);
    // A dropped create sent again at once.
    server.next({ match: { method: "POST" }, answer: { drop: "after" } });
    expect(await send("/v1/pets", { body: PET })).toBeNull();
    expect(await send("/v1/pets", { body: PET })).toBe(201);
    // Dropped twice, sent again at once each time.
    server.next({ match: { path: "/v1/pets" }, answer: { drop: "before" }, times: 2 });
    expect([await send("/v1/pets"), await send("/v1/pets"), await send("/v1/pets")]).toEqual([
      null,
      null,
      200,
    ]);
    // A 429 retried at once (and banned for it), then on while banned.
    server.next({ answer: { status: 429, retryAfterSeconds: 30 }, times: 2 });
    expect([await send("/v1/pets"), await send("/v1/pets"), await send("/v1/pets")]).toEqual([
      429, 429, 429,
    ]);
    // Two hours on: the ban is over and the sunset has passed.
    server.clock.advance(7200);
    expect(await send("/v1/pets/1")).toBe(410);

    const verdict = (await admin(server.url, "/verdict")).body as ReturnType<typeof server.verdict>;
    expect(verdict.pass).toBe(false);
    expect(verdict.violations.map((item) => item.rule)).toEqual([
      "duplicate-after-unknown-outcome",
      "no-backoff",
      "early-retry",
      "request-while-banned",
      "removed-endpoint",
    ]);
    expect(verdict.warnings.map((item) => [item.rule, item.count])).toEqual([
      ["deprecated-endpoint", 1],
      ["unauthenticated", 1],
    ]);
    const duplicate = verdict.violations[0]!;
    const created = server.requests({ method: "POST" });
    expect(duplicate.key).toBe("…6789");
    expect(duplicate.request).toEqual({
      method: "POST",
      path: "/v1/pets",
      time: created[1]!.time,
      id: created[1]!.id,
    });
    expect(duplicate.message).toMatch(/created pet 4, a duplicate of pet 3/);
    expect(verdict.violations[1]!.message).toMatch(/back off exponentially/);
    expect(verdict.violations[2]!.message).toMatch(/before the Retry-After/);
    expect(server.verdict()).toEqual(verdict);
    await admin(server.url, "/reset", { method: "POST" });
    expect(server.verdict()).toEqual({ pass: true, violations: [], warnings: [], omitted: 0 });
  });

  it("finds nothing wrong with a careful client doing the same work", async () => {
    const server = await start();
    const send = (path: string, options = {}) =>
      call(server.url, path, { key: KEY, ...options }).then(
        (answer) => answer,
        () => null,
      );
    expect((await send("/v1/pets?limit=1"))!.status).toBe(200);
    server.next({ match: { method: "POST" }, answer: { drop: "after" } });
    expect(await send("/v1/pets", { body: PET })).toBeNull();
    // Its outcome unknown, it looks before sending it again: there it is.
    const listed = await send("/v1/pets?limit=100");
    expect(listed!.text).toContain('"Twice"');
    server.next({ match: { path: "/v1/pets" }, answer: { drop: "before" }, times: 2 });
    expect(await send("/v1/pets")).toBeNull();
    await sleep(300);
    expect(await send("/v1/pets")).toBeNull();
    await sleep(700);
    expect((await send("/v1/pets"))!.status).toBe(200);
    server.next({ answer: { status: 429, retryAfterSeconds: 1 } });
    const limited = await send("/v1/pets");
    expect(limited!.status).toBe(429);
    await sleep(Number(limited!.headers["retry-after"]) * 1000 + 250);
    expect((await send("/v1/pets"))!.status).toBe(200);
    server.clock.advance(7200);
    expect((await send("/v1/pets?status=available"))!.status).toBe(200);
    expect(server.verdict()).toEqual({ pass: true, violations: [], warnings: [], omitted: 0 });
  });

  it("counts no request a concurrent client had in flight when a 503 left", async () => {
    const server = await start({ keys: [`${KEY}:pro`] });
    server.next({ match: { method: "POST" }, answer: { status: 503 } });
    const rows = Array.from({ length: 16 }, (_, i) =>
      JSON.stringify({ name: `R${i}`, categoryId: 1 }),
    );
    const statuses = await Promise.all(
      rows.map((body) => call(server.url, "/v1/pets", { key: KEY, body }).then((a) => a.status)),
    );
    expect(statuses.filter((status) => status === 503)).toHaveLength(1);
    expect(server.verdict().violations).toEqual([]);
    // The same request again at once is a retry, however soon.
    server.next({ match: { method: "GET" }, answer: { status: 503, retryAfterSeconds: 5 } });
    await call(server.url, "/v1/pets", { key: KEY });
    await call(server.url, "/v1/pets", { key: KEY });
    expect(server.verdict().violations.map((item) => item.rule)).toEqual(["early-retry"]);
  });

  it("counts no identical request that was in flight when the 503 left", async () => {
    // Every answer a 503 (Retry-After: 1) after 300 ms: the 8 requests all arrive before the
    // first answer leaves, so none is a retry of it, though all are the same request.
    const server = await start({
      keys: [`${KEY}:pro`],
      faults: { failRate: 1, failMode: "503", latency: { minMs: 300, maxMs: 300 } },
    });
    const statuses = await Promise.all(
      Array.from({ length: 8 }, () =>
        call(server.url, "/v1/pets", { key: KEY }).then((a) => a.status),
      ),
    );
    expect(statuses).toEqual(Array(8).fill(503));
    expect(server.verdict().violations).toEqual([]);
  });

  it("allows a retry up to 250 ms before the Retry-After has passed, and no earlier", async () => {
    const server = await start();
    const limited = async () => {
      server.next({ answer: { status: 429, retryAfterSeconds: 30 } });
      expect((await call(server.url, "/v1/pets", { key: KEY })).status).toBe(429);
    };
    await limited();
    server.clock.advance(29.9);
    expect((await call(server.url, "/v1/pets", { key: KEY })).status).toBe(200);
    expect(server.verdict().violations).toEqual([]);
    await limited();
    server.clock.advance(29.5);
    expect((await call(server.url, "/v1/pets", { key: KEY })).status).toBe(200);
    expect(server.verdict().violations.map((item) => item.rule)).toEqual(["early-retry"]);
  });

  it("warns of the same body created twice by one key within 60 s, both answered 201", async () => {
    const server = await start();
    const create = async () => {
      const created = await call(server.url, "/v1/pets", { key: KEY, body: PET });
      expect(created.status).toBe(201);
      return (JSON.parse(created.text) as { id: number }).id;
    };
    const first = await create();
    const second = await create();
    const { warnings } = server.verdict();
    expect(warnings.map((item) => item.rule)).toEqual(["repeated-create"]);
    expect(warnings[0]!.message).toContain(
      `created pet ${second} with the same body as pet ${first}`,
    );
    server.clock.advance(61);
    await create();
    expect(server.verdict().warnings).toHaveLength(1);
    expect(server.verdict().pass).toBe(true);
  });

  it("names no-backoff for a 500 without Retry-After retried at once", async () => {
    const server = await start();
    server.next({ match: { path: "/v1/pets" }, answer: { status: 500 }, times: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await call(server.url, "/v1/pets", { key: KEY })).status);
    expect(statuses).toEqual([500, 500, 200]);
    expect(server.verdict().violations.map((item) => item.rule)).toEqual(["no-backoff"]);
  });

  it("gives the library a verdict and rules that later requests do not change", async () => {
    const server = await start();
    server.next({ match: { path: "/v1/pets/2" }, answer: { status: 404 }, times: 2 });
    await call(server.url, "/v1/pets/1", { key: KEY });
    const verdict = server.verdict();
    const rules = server.nextRules();
    await call(server.url, "/v1/pets/1", { key: KEY });
    await call(server.url, "/v1/pets/2", { key: KEY });
    expect(verdict.warnings.map((item) => item.count)).toEqual([1]);
    expect(rules.map((rule) => rule.used)).toEqual([0]);
    expect(server.verdict().warnings.map((item) => item.count)).toEqual([3]);
    expect(server.nextRules().map((rule) => rule.used)).toEqual([1]);
  });

  it("is shown on the home page", async () => {
    const server = await start({ sunset: "now" });
    const page = () => call(server.url, "/", { headers: { accept: "text/html" } });
    expect((await page()).text).toContain('<span class="pill ok">pass</span>');
    await call(server.url, "/v1/pets/1", { key: KEY });
    const html = (await page()).text;
    expect(html).toContain('<span class="pill bad">1 violation</span>');
    expect(html).toContain(
      '<span class="pill bad">removed-endpoint</span> <code>GET /v1/pets/1</code>',
    );
    expect(html).toContain("the contract names GET /pets (its status filter) as the replacement");
  });

  it("keeps 1,000 items of a list and counts the rest", async () => {
    const server = await start({ keys: [`${KEY}:enterprise`], sunset: "now" });
    for (let i = 0; i < 1002; i++) await call(server.url, "/v1/pets/1", { key: KEY });
    const verdict = server.verdict();
    expect(verdict.violations).toHaveLength(1000);
    expect(verdict.omitted).toBe(2);
  });
});
