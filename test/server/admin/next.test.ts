/** Scripted answers: POST, GET and DELETE /__admin/next, and the library's next(). */
import { afterEach, describe, expect, it } from "vitest";
import { planServe } from "../../../src/server/serve-options.js";
import { call, startTestServer } from "../http.js";
import { admin, expectError } from "./admin-http.js";

const KEY = "next-key";
const OTHER = "other-key";
const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(options: Parameters<typeof startTestServer>[0] = {}) {
  const server = await startTestServer({ keys: [KEY, `${OTHER}:pro`], seed: 3, ...options });
  servers.push(server);
  return server;
}

const get = (url: string, path: string, key = KEY) => call(url, path, { key });

describe("scripted answers", () => {
  it("answer the next matching request once, then the real answer; GET shows the use", async () => {
    const { url } = await start();
    const added = await admin(url, "/next", {
      method: "POST",
      json: { match: { method: "GET", path: "/v1/pets/1" }, answer: { status: 404 } },
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ times: 1, used: 0 });
    const first = await get(url, "/v1/pets/1");
    expect(first.status).toBe(404);
    expect(JSON.parse(first.text)).toEqual({
      code: "pet_not_found",
      message: expect.any(String),
      status: 404,
    });
    expect(first.headers["x-ratelimit-remaining"]).toBeDefined();
    expect(first.headers.sunset).toBeDefined();
    expect((await get(url, "/v1/pets/1")).status).toBe(200);
    const listed = await admin(url, "/next");
    expect(listed.body).toEqual({
      rules: [
        {
          match: { method: "GET", path: "/v1/pets/1" },
          answer: { status: 404 },
          times: 1,
          used: 1,
        },
      ],
    });
  });

  it("drop: after creates the pet and resets the connection; drop: before creates none", async () => {
    const server = await start();
    const body = JSON.stringify({ name: "Dropped", categoryId: 1 });
    await admin(server.url, "/next", {
      method: "POST",
      json: { match: { method: "post", path: "/v1/pets" }, answer: { drop: "after" } },
    });
    await expect(call(server.url, "/v1/pets", { key: KEY, body })).rejects.toMatchObject({
      code: "ECONNRESET",
    });
    expect(server.store.size).toBe(4);
    server.next({ answer: { drop: "before" } });
    await expect(call(server.url, "/v1/pets", { key: KEY, body })).rejects.toMatchObject({
      code: "ECONNRESET",
    });
    expect(server.store.size).toBe(4);
    expect(server.requests({ method: "POST" }).map((entry) => entry.status)).toEqual([null, null]);
  });

  it("give the headers the real answer carries, and a scripted 429 counts toward a ban", async () => {
    const server = await start({ ban: { banAfter: 2, banMs: 60_000 } });
    server.next({ answer: { status: 401 } });
    const unauthorized = await get(server.url, "/v1/pets");
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers["www-authenticate"]).toContain("Bearer");
    server.next({ answer: { status: 503, retryAfterSeconds: 7 } });
    const unavailable = await get(server.url, "/v1/pets");
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers["retry-after"]).toBe("7");
    server.next({ match: { key: KEY }, answer: { status: 429, retryAfterSeconds: 30 }, times: 3 });
    const limited = await get(server.url, "/v1/pets");
    expect(JSON.parse(limited.text)).toMatchObject({ code: "rate_limited", status: 429 });
    expect(limited.headers).toMatchObject({ "retry-after": "30", "x-ratelimit-remaining": "0" });
    // The other key matches no rule.
    expect((await get(server.url, "/v1/pets", OTHER)).status).toBe(200);
    await get(server.url, "/v1/pets");
    await get(server.url, "/v1/pets");
    const banned = await get(server.url, "/v1/pets");
    expect(JSON.parse(banned.text)).toMatchObject({ code: "banned", status: 429 });
    expect(server.nextRules().map((rule) => rule.used)).toEqual([1, 1, 3]);
  });

  it("delay the real answer by delayMs", async () => {
    const server = await start();
    server.next({ match: { path: "/v1/pets*" }, answer: { delayMs: 300 } });
    const started = performance.now();
    expect((await get(server.url, "/v1/pets/2")).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it("are cleared by DELETE /__admin/next and by /__admin/reset", async () => {
    const { url } = await start();
    const rule = { answer: { status: 500 }, times: 5 };
    await admin(url, "/next", { method: "POST", json: rule });
    expect((await admin(url, "/next", { method: "DELETE" })).status).toBe(204);
    expect((await get(url, "/v1/pets")).status).toBe(200);
    await admin(url, "/next", { method: "POST", json: rule });
    await admin(url, "/reset", { method: "POST" });
    expect((await admin(url, "/next")).body).toEqual({ rules: [] });
  });

  it("refuse a bad rule with a 400 naming the field, the rules unchanged", async () => {
    const server = await start();
    server.next({ answer: { status: 404 } });
    const cases: Array<[unknown, string]> = [
      [{ answer: { status: 418 } }, "answer.status must be one of 400, 401, 404, 429, 500, 503"],
      [{ answer: { status: 404 }, times: -1 }, "times must be an integer from 1 to 10000"],
      [{ answer: { status: 404 }, after: 1 }, "after is not a field"],
      [{ answer: { status: 404, colour: "red" } }, "answer.colour is not a field"],
      [
        { answer: { status: 404, drop: "after" } },
        "answer: give exactly one of status, drop or delayMs",
      ],
      [
        { answer: { status: 404, retryAfterSeconds: 3 } },
        "answer.retryAfterSeconds: only with status 429 or 503",
      ],
      [
        { match: { path: "pets" }, answer: { status: 404 } },
        "match.path must be a path starting with /",
      ],
    ];
    for (const [json, words] of cases) {
      expect(
        expectError(
          await admin(server.url, "/next", { method: "POST", json }),
          400,
          "invalid_admin_request",
        ),
      ).toContain(words);
    }
    const notJson = await admin(server.url, "/next", { method: "POST", body: "{status: 404" });
    expect(notJson.status).toBe(400);
    expect(notJson.body.code).toBe("invalid_json");
    expect(() => server.next({ answer: { status: 302 } } as never)).toThrow(
      "next: answer.status must be one of",
    );
    expect(server.nextRules()).toEqual([{ match: {}, answer: { status: 404 }, times: 1, used: 0 }]);
  });

  it("answer Prism's Prefer: code=S only when asked to (--prefer-code)", async () => {
    const prefer = (url: string, value: string) =>
      call(url, "/v1/pets/1", { key: KEY, headers: { prefer: value } }).then((a) => a.status);
    const plain = await start();
    expect(await prefer(plain.url, "code=404")).toBe(200);
    const prism = await start({ preferCode: true });
    expect(await prefer(prism.url, "code=404")).toBe(404);
    expect(await prefer(prism.url, "example=cat, code=503")).toBe(503);
    expect(await prefer(prism.url, "code=418")).toBe(200);
    const flags = { file: "p.json", port: "0", host: "127.0.0.1", key: [KEY], preferCode: true };
    expect(planServe(flags, {}).options.preferCode).toBe(true);
  });

  it("keep 100 rules with uses left at most", async () => {
    const server = await start();
    for (let i = 0; i < 100; i++)
      server.next({ match: { path: `/v1/pets/${i}` }, answer: { status: 404 } });
    const full = await admin(server.url, "/next", {
      method: "POST",
      json: { answer: { status: 500 } },
    });
    expect(expectError(full, 400, "invalid_admin_request")).toContain("100 rules");
    await get(server.url, "/v1/pets/1");
    server.next({ answer: { status: 500 } });
    expect(server.nextRules()).toHaveLength(100);
    expect(server.nextRules().at(-1)!.answer).toEqual({ status: 500 });
  });
});
