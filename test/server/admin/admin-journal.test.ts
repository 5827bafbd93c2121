/** GET and DELETE /__admin/requests: the request journal over HTTP. */
import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { call, manualClock, startTestServer } from "../http.js";
import { admin, expectError } from "./admin-http.js";

const KEY = "journal-test-key-0123456789";
const NOON = Date.UTC(2030, 0, 15, 12, 0, 1);

let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: Parameters<typeof startTestServer>[0] = {}) {
  server = await startTestServer({ keys: [`${KEY}:pro`], seed: 2, ...options });
  return server;
}

interface Entry {
  id: number;
  time: string;
  method: string;
  path: string;
  query: string;
  status: number | null;
  durationMs: number;
  plan: string | null;
  body?: string;
  bodyBytes?: number;
  bodyTruncated?: boolean;
}
async function journal(url: string, query = ""): Promise<Entry[]> {
  const answer = await admin(url, `/requests${query}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.requests as Entry[];
}

describe("GET /__admin/requests", () => {
  it("records each request, newest last: method, path, query, status, time, duration, plan", async () => {
    const clock = manualClock(NOON);
    const { url } = await start({ clock });
    await call(url, "/v1/pets?status=sold&limit=5", { key: KEY });
    clock.advance(1500);
    await call(url, "/v1/pets/2", { key: KEY, method: "HEAD" });
    await call(url, "/v2/nowhere", { key: KEY });
    await call(url, "/v1/pets");
    await admin(url, "/health");
    const entries = await journal(url);
    expect(entries).toEqual([
      {
        id: 1,
        time: new Date(NOON).toISOString(),
        method: "GET",
        path: "/v1/pets",
        query: "status=sold&limit=5",
        status: 200,
        durationMs: expect.any(Number),
        plan: "pro",
      },
      {
        id: 2,
        time: new Date(NOON + 1500).toISOString(),
        method: "HEAD",
        path: "/v1/pets/2",
        query: "",
        status: 200,
        durationMs: expect.any(Number),
        plan: "pro",
      },
      expect.objectContaining({ id: 3, path: "/v2/nowhere", status: 404, plan: "pro" }),
      expect.objectContaining({ id: 4, path: "/v1/pets", status: 401, plan: null }),
    ]);
    expect(entries.every((entry) => entry.durationMs >= 0)).toBe(true);
  });

  it("keeps POST bodies as received, and never the key", async () => {
    const { url } = await start();
    const sent = '{"name":"Rex","categoryId":1,\n "status":"sold"}';
    await call(url, "/v1/pets", { key: KEY, body: sent });
    await call(url, "/v1/pets", { key: KEY, body: "{oops" });
    await call(url, "/v1/pets", { key: KEY, body: '{"name":"Ünïcødé 🐕","categoryId":2}' });
    const answer = await admin(url, "/requests");
    expect(answer.text).not.toContain(KEY);
    expect(answer.text).not.toContain(KEY.slice(-8));
    expect(answer.text.toLowerCase()).not.toContain("authorization");
    const entries = answer.body.requests as Entry[];
    expect(
      entries.map((entry) => [entry.status, entry.body, entry.bodyBytes, entry.bodyTruncated]),
    ).toEqual([
      [201, sent, Buffer.byteLength(sent), false],
      [400, "{oops", 5, false],
      [201, '{"name":"Ünïcødé 🐕","categoryId":2}', 42, false],
    ]);
  });

  it("records requests answered out of order: a slow POST body with GETs meanwhile", async () => {
    const { url } = await start();
    const { port } = new URL(url);
    const body = '{"name":"Slow","categoryId":1}';
    let answered!: (status: number) => void;
    const posted = new Promise<number>((resolve) => (answered = resolve));
    const slow = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/v1/pets",
        headers: {
          authorization: `Bearer ${KEY}`,
          "content-type": "application/json",
          "content-length": body.length,
        },
      },
      (res) => {
        res.resume();
        answered(res.statusCode!);
      },
    );
    slow.write(body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await call(url, "/v1/pets/1", { key: KEY })).status).toBe(200);
    expect((await call(url, "/v1/pets/99", { key: KEY })).status).toBe(404);
    slow.end(body.slice(10));
    expect(await posted).toBe(201);
    const entries = await journal(url);
    expect(entries.map((entry) => [entry.method, entry.path, entry.status, entry.body])).toEqual([
      ["GET", "/v1/pets/1", 200, undefined],
      ["GET", "/v1/pets/99", 404, undefined],
      ["POST", "/v1/pets", 201, body],
    ]);
    expect(entries.map((entry) => entry.id)).toEqual([1, 2, 3]);
  });

  it("keeps the first 64 KiB of a body, and says how long it was", async () => {
    const { url } = await start();
    const exactly = `{"name":"${"a".repeat(64 * 1024 - 26)}","categoryId":1}`;
    const onePast = `{"name":"${"b".repeat(64 * 1024 - 25)}","categoryId":1}`;
    expect(Buffer.byteLength(exactly)).toBe(64 * 1024);
    expect(Buffer.byteLength(onePast)).toBe(64 * 1024 + 1);
    await call(url, "/v1/pets", { key: KEY, body: exactly });
    await call(url, "/v1/pets", { key: KEY, body: onePast });
    const [whole, cut] = await journal(url);
    expect(whole).toMatchObject({
      status: 400,
      body: exactly,
      bodyBytes: 65536,
      bodyTruncated: false,
    });
    expect(cut).toMatchObject({
      status: 400,
      body: onePast.slice(0, -1),
      bodyBytes: 65537,
      bodyTruncated: true,
    });
  });

  it("cuts a body before a character, never inside one, and keeps less of each in a big journal", async () => {
    const { url } = await start();
    // "é" is two bytes: the 65,536th byte is the first half of one.
    const body = "x" + "é".repeat(40_000);
    await call(url, "/v1/pets", { key: KEY, body });
    const [entry] = await journal(url);
    expect(entry).toMatchObject({ bodyBytes: 80_001, bodyTruncated: true });
    expect(entry!.body).toBe("x" + "é".repeat(32_767));
    await server!.close();
    // 64 MiB of bodies at most: 5,000 requests keep 13,421 bytes of each.
    const big = await start({ journalSize: 5000 });
    await call(big.url, "/v1/pets", { key: KEY, body: "y".repeat(20_000) });
    expect((await journal(big.url))[0]).toMatchObject({
      body: "y".repeat(13_421),
      bodyBytes: 20_000,
      bodyTruncated: true,
    });
  });

  it("filters by method, path (exact or prefix), status (or class) and time", async () => {
    const clock = manualClock(NOON);
    const { url } = await start({ clock });
    await call(url, "/v1/pets", { key: KEY });
    await call(url, "/v1/pets/1", { key: KEY });
    await call(url, "/v1/pets/999", { key: KEY });
    clock.advance(60_000);
    await call(url, "/v1/pets", { key: KEY, body: '{"name":"A","categoryId":1}' });
    await call(url, "/v1/pets", { key: KEY, body: "{}" });
    const ids = async (query: string) => (await journal(url, query)).map((entry) => entry.id);
    expect(await ids("?method=post")).toEqual([4, 5]);
    expect(await ids("?path=/v1/pets")).toEqual([1, 4, 5]);
    expect(await ids("?path=/v1/pets/*")).toEqual([2, 3]);
    expect(await ids("?path=/v1/*&status=4xx")).toEqual([3, 5]);
    expect(await ids("?status=201")).toEqual([4]);
    expect(await ids(`?since=${encodeURIComponent(new Date(NOON + 1).toISOString())}`)).toEqual([
      4, 5,
    ]);
    expect(await ids(`?since=${NOON + 60_000}&method=POST&status=2xx`)).toEqual([4]);
    expect(await ids("?since=2030-01-15T12:00:01%2B00:00")).toEqual([1, 2, 3, 4, 5]);
  });

  it.each([
    ["?method=G3T", 'method must be an HTTP method such as GET or POST; got "G3T"'],
    [
      "?path=v1/pets",
      'path must be a path starting with /, ending in * to match a prefix; got "v1/pets"',
    ],
    ["?status=600", "status must be an HTTP status from 100 to 599, or a class such as 4xx"],
    ["?status=abc", 'got "abc"'],
    [
      "?since=yesterday",
      'since must be an ISO 8601 time (2030-01-01T00:00:00Z) or Unix milliseconds; got "yesterday"',
    ],
    ["?key=x", "key is not a filter; filters: method, path, status, since, after, limit"],
    [
      "?after=-1",
      'after must be a request id, a whole number (0 for the oldest on); got the string "-1"',
    ],
    ["?limit=100001", 'limit must be a whole number from 0 to 100000; got the string "100001"'],
    ["?status=200&status=201", "status is given more than once"],
  ])("refuses the query %s with a 400 naming the filter", async (query, expected) => {
    const { url } = await start();
    expect(
      expectError(await admin(url, `/requests${query}`), 400, "invalid_admin_request"),
    ).toContain(expected);
  });

  it("keeps the last --journal-size requests; ids go on increasing", async () => {
    const { url } = await start({ journalSize: 3 });
    for (let i = 0; i < 5; i++) await call(url, `/v1/pets?limit=${i + 1}`, { key: KEY });
    const answer = await admin(url, "/requests");
    expect(answer.body.journalSize).toBe(3);
    expect((answer.body.requests as Entry[]).map((entry) => [entry.id, entry.query])).toEqual([
      [3, "limit=3"],
      [4, "limit=4"],
      [5, "limit=5"],
    ]);
  });

  it("keeps nothing with a journal size of 0", async () => {
    const { url } = await start({ journalSize: 0 });
    await call(url, "/v1/pets", { key: KEY });
    expect((await admin(url, "/requests")).body).toEqual({
      requests: [],
      journalSize: 0,
      lastId: 0,
      nextAfter: null,
    });
  });
});

describe("DELETE /__admin/requests", () => {
  it("empties the journal; the next request gets the next id", async () => {
    const { url } = await start();
    await call(url, "/v1/pets", { key: KEY });
    await call(url, "/v1/pets", { key: KEY });
    const cleared = await admin(url, "/requests", { method: "DELETE" });
    expect(cleared.status).toBe(204);
    expect(cleared.text).toBe("");
    expect(await journal(url)).toEqual([]);
    await call(url, "/v1/pets", { key: KEY });
    expect((await journal(url)).map((entry) => entry.id)).toEqual([3]);
  });
});
