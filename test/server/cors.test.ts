/**
 * CORS: preflights answered before rate limiting and authentication, at no
 * quota; every other answer (errors and socket answers included) readable by
 * browser code; `cors: [...]` restricts origins, `cors: false` turns it off.
 */
import { connect } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ServerConfigError } from "../../src/server/config-error.js";
import { planServe } from "../../src/server/serve-options.js";
import { createMemoryStore } from "../../src/server/store/memory.js";
import { call, manualClock, startTestServer, type Answer } from "./http.js";

const KEY = "cors-pro-key";
const APP = "http://localhost:5173";
const EXPOSED = [
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "Retry-After",
  "Location",
  "Deprecation",
  "Sunset",
  "Link",
];
/** 12:00:01 UTC: one minute window for the whole file. */
const NOON = Date.UTC(2030, 0, 15, 12, 0, 1);

type Server = Awaited<ReturnType<typeof startTestServer>>;

const pets = () =>
  createMemoryStore([
    { id: 1n, name: "Rex", categoryId: 1n, status: "available" },
    { id: 2n, name: "Tom", categoryId: 2n, status: "sold" },
  ]);

function preflight(
  base: string,
  path: string,
  origin = APP,
  extra: Record<string, string> = {},
): Promise<Answer> {
  return call(base, path, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": "POST", ...extra },
  });
}

function expectReadable(answer: Answer, origin = APP): void {
  expect(answer.headers["access-control-allow-origin"]).toBe(origin);
  const exposed = String(answer.headers["access-control-expose-headers"]).split(/\s*,\s*/);
  expect(exposed.map((name) => name.toLowerCase())).toEqual(
    expect.arrayContaining(EXPOSED.map((name) => name.toLowerCase())),
  );
  expect(answer.headers.vary).toMatch(/\bOrigin\b/);
}

function expectNoCors(answer: Answer): void {
  expect(Object.keys(answer.headers).filter((name) => name.startsWith("access-control-"))).toEqual(
    [],
  );
}

/** A raw request over a socket; the server's answer once it closes. */
function exchange(port: number, text: string): Promise<{ status: number; head: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (data) => (received += data.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => {
      const head = received.slice(0, received.indexOf("\r\n\r\n")).toLowerCase();
      resolve({ status: Number(head.split(" ")[1]), head });
    });
    socket.write(Buffer.from(text, "latin1"));
  });
}

describe("CORS on by default", () => {
  let server: Server;
  beforeAll(async () => {
    server = await startTestServer({
      keys: [`${KEY}:pro`, "cors-limited-key:enterprise:3/1000"],
      store: pets(),
      clock: manualClock(NOON),
    });
  });
  afterAll(() => server.close());

  it.each(["/v1/pets", "/v1/pets/1", "/v1/openapi.json", "/v1/nowhere", "/v1"])(
    "answers a preflight on %s with 204 and the CORS grants",
    async (path) => {
      const answer = await preflight(server.url, path);
      expect(answer.status).toBe(204);
      expect(answer.text).toBe("");
      expect(answer.headers["access-control-allow-origin"]).toBe(APP);
      const methods = String(answer.headers["access-control-allow-methods"]).split(/\s*,\s*/);
      expect(methods).toEqual(expect.arrayContaining(["GET", "HEAD", "POST"]));
      const allowed = String(answer.headers["access-control-allow-headers"]).split(/\s*,\s*/);
      expect(allowed).toEqual(expect.arrayContaining(["authorization", "content-type"]));
      expect(Number(answer.headers["access-control-max-age"])).toBeGreaterThan(0);
      expect(answer.headers.vary).toMatch(/\bOrigin\b/);
      expect(answer.headers["www-authenticate"]).toBeUndefined();
    },
  );

  it("echoes the requested headers when they are header names, lower-cased", async () => {
    const answer = await preflight(server.url, "/v1/pets", APP, {
      "access-control-request-headers": "Authorization, Content-Type,X-Request-Id ,traceparent",
    });
    const allowed = String(answer.headers["access-control-allow-headers"]).split(/\s*,\s*/);
    expect(allowed).toEqual(
      expect.arrayContaining(["authorization", "content-type", "x-request-id", "traceparent"]),
    );
    const junk = await preflight(server.url, "/v1/pets", APP, {
      "access-control-request-headers": "authorization, bad header(", // not tokens
    });
    expect(junk.status).toBe(204);
    expect(String(junk.headers["access-control-allow-headers"])).not.toMatch(/bad/);
  });

  it("grants private-network access when a preflight asks for it", async () => {
    const asked = await preflight(server.url, "/v1/pets", APP, {
      "access-control-request-private-network": "true",
    });
    expect(asked.headers["access-control-allow-private-network"]).toBe("true");
    const plain = await preflight(server.url, "/v1/pets");
    expect(plain.headers["access-control-allow-private-network"]).toBeUndefined();
  });

  it("spends no quota on preflights, of the key or of the address", async () => {
    const before = await call(server.url, "/v1/pets", { key: KEY, headers: { origin: APP } });
    for (let i = 0; i < 5; i++) expect((await preflight(server.url, "/v1/pets")).status).toBe(204);
    const after = await call(server.url, "/v1/pets", { key: KEY, headers: { origin: APP } });
    expect(Number(after.headers["x-ratelimit-remaining"])).toBe(
      Number(before.headers["x-ratelimit-remaining"]) - 1,
    );
    const anonymous = await call(server.url, "/v1/pets");
    const preflighted = await preflight(server.url, "/v1/pets/2");
    expect(preflighted.headers["x-ratelimit-remaining"]).toBe(
      anonymous.headers["x-ratelimit-remaining"],
    );
    const again = await call(server.url, "/v1/pets");
    expect(Number(again.headers["x-ratelimit-remaining"])).toBe(
      Number(anonymous.headers["x-ratelimit-remaining"]) - 1,
    );
  });

  it("answers preflights of a client that is rate limited", async () => {
    const limited = { key: "cors-limited-key", headers: { origin: APP } };
    for (let i = 0; i < 3; i++) await call(server.url, "/v1/pets", limited);
    const refused = await call(server.url, "/v1/pets", limited);
    expect(refused.status).toBe(429);
    expectReadable(refused);
    expect(refused.headers["retry-after"]).toMatch(/^[0-9]+$/);
    expect((await preflight(server.url, "/v1/pets")).status).toBe(204);
  });

  it("keeps today's answers to an OPTIONS that is not a preflight", async () => {
    const anonymous = await call(server.url, "/v1/pets", { method: "OPTIONS" });
    expect(anonymous.status).toBe(401);
    const keyed = await call(server.url, "/v1/pets", { method: "OPTIONS", key: KEY });
    expect(keyed.status).toBe(405);
    expect(keyed.headers.allow).toBe("GET, HEAD, POST");
    const originOnly = await call(server.url, "/v1/pets", {
      method: "OPTIONS",
      key: KEY,
      headers: { origin: APP },
    });
    expect(originOnly.status).toBe(405);
    expectReadable(originOnly);
  });

  it("does not treat a preflight outside /v1 as one", async () => {
    const answer = await preflight(server.url, "/elsewhere");
    expect(answer.status).toBe(401);
    expectReadable(answer);
  });

  it.each([
    ["a list", "/v1/pets?limit=1", { key: KEY }, 200],
    ["a pet", "/v1/pets/1", { key: KEY }, 200],
    ["a missing pet", "/v1/pets/99", { key: KEY }, 404],
    ["a bad query", "/v1/pets?limit=0", { key: KEY }, 400],
    ["no key", "/v1/pets", {}, 401],
    ["a wrong key", "/v1/pets", { key: "nope" }, 401],
    ["no route", "/v2", { key: KEY }, 404],
    ["a wrong method", "/v1/pets/1", { key: KEY, method: "DELETE" }, 405],
    ["the document", "/v1/openapi.json", {}, 200],
    ["a wrong media type", "/v1/pets", { key: KEY, body: "x", contentType: "text/plain" }, 415],
  ] as const)("makes %s readable (%s)", async (_, path, options, status) => {
    const answer = await call(server.url, path, { ...options, headers: { origin: APP } });
    expect(answer.status).toBe(status);
    expectReadable(answer);
  });

  it("makes a create readable, Location included", async () => {
    const answer = await call(server.url, "/v1/pets", {
      key: KEY,
      headers: { origin: APP },
      body: '{"name":"Momo","categoryId":3}',
    });
    expect(answer.status).toBe(201);
    expectReadable(answer);
    expect(answer.headers.location).toMatch(/^\/v1\/pets\/[0-9]+$/);
  });

  it("answers a request without Origin with Vary: Origin and no grant", async () => {
    const answer = await call(server.url, "/v1/pets/1", { key: KEY });
    expect(answer.status).toBe(200);
    expect(answer.headers.vary).toMatch(/\bOrigin\b/);
    expect(answer.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("reflects any origin, and no origin that is not one", async () => {
    for (const origin of ["https://app.example.com", "http://127.0.0.1:8080", "null"]) {
      expectReadable(
        await call(server.url, "/v1/pets/1", { key: KEY, headers: { origin } }),
        origin,
      );
    }
    const odd = await call(server.url, "/v1/pets/1", {
      key: KEY,
      headers: { origin: "not an origin" },
    });
    expect(odd.status).toBe(200);
    expect(odd.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("makes the answers written straight to the socket readable", async () => {
    const connectAnswer = await exchange(
      server.port,
      `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nOrigin: ${APP}\r\n\r\n`,
    );
    expect(connectAnswer.status).toBe(405);
    expect(connectAnswer.head).toContain(`access-control-allow-origin: ${APP}`);
    expect(connectAnswer.head).toContain("access-control-expose-headers: x-ratelimit-limit");
    const brokenBody = await exchange(
      server.port,
      `POST /v1/pets HTTP/1.1\r\nHost: a\r\nOrigin: ${APP}\r\nAuthorization: Bearer ${KEY}\r\n` +
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    );
    expect(brokenBody.status).toBe(400);
    expect(brokenBody.head).toContain(`access-control-allow-origin: ${APP}`);
    const noHost = await exchange(
      server.port,
      `GET /v1/pets HTTP/1.1\r\nOrigin: ${APP}\r\nAuthorization: Bearer ${KEY}\r\n\r\n`,
    );
    expect(noHost.status).toBe(400);
    expect(noHost.head).toContain(`access-control-allow-origin: ${APP}`);
  });
});

describe("CORS with faults", () => {
  let server: Server;
  afterEach(() => server.close());

  it("makes an injected 503 readable, Retry-After included", async () => {
    server = await startTestServer({
      keys: [`${KEY}:pro`],
      store: pets(),
      faults: { failRate: 1, failMode: "503" },
    });
    const answer = await call(server.url, "/v1/pets", { key: KEY, headers: { origin: APP } });
    expect(answer.status).toBe(503);
    expectReadable(answer);
    expect(answer.headers["retry-after"]).toBe("1");
  });
});

describe("cors: a list of origins", () => {
  let server: Server;
  beforeAll(async () => {
    server = await startTestServer({
      keys: [`${KEY}:pro`],
      store: pets(),
      cors: ["http://localhost:5173", "HTTPS://App.Example.com:443/"],
    });
  });
  afterAll(() => server.close());

  it("grants the listed origins, compared as serialized origins", async () => {
    expectReadable(await call(server.url, "/v1/pets/1", { key: KEY, headers: { origin: APP } }));
    const https = "https://app.example.com";
    expectReadable(
      await call(server.url, "/v1/pets/1", { key: KEY, headers: { origin: https } }),
      https,
    );
    expect((await preflight(server.url, "/v1/pets", https)).status).toBe(204);
  });

  it.each(["http://localhost:5174", "https://localhost:5173", "http://evil.example", "null"])(
    "serves %s without a grant",
    async (origin) => {
      const answer = await call(server.url, "/v1/pets/1", { key: KEY, headers: { origin } });
      expect(answer.status).toBe(200);
      expectNoCors(answer);
      expect(answer.headers.vary).toMatch(/\bOrigin\b/);
      const refused = await preflight(server.url, "/v1/pets", origin);
      expect(refused.status).toBe(204);
      expectNoCors(refused);
    },
  );
});

describe("cors: false", () => {
  let server: Server;
  beforeAll(async () => {
    server = await startTestServer({ keys: [`${KEY}:pro`], store: pets(), cors: false });
  });
  afterAll(() => server.close());

  it("sends no CORS headers and no Vary", async () => {
    const answer = await call(server.url, "/v1/pets/1", { key: KEY, headers: { origin: APP } });
    expect(answer.status).toBe(200);
    expectNoCors(answer);
    expect(answer.headers.vary).toBeUndefined();
  });

  it("answers a preflight as any OPTIONS: rate limited, authenticated, 401", async () => {
    const answer = await preflight(server.url, "/v1/pets");
    expect(answer.status).toBe(401);
    expectNoCors(answer);
  });
});

describe("cors option validation", () => {
  it.each([
    [["localhost:5173"], /cors.*"localhost:5173".*scheme:\/\/host/],
    [["http://localhost:5173/app"], /cors.*"http:\/\/localhost:5173\/app".*no path/],
    [["ftp://files.example"], /cors.*http or https/],
    [[""], /cors: "" is not an origin/],
    [["http://a.example?x=1"], /no path, query or fragment/],
    [["http://user@a.example"], /user name or password/],
    [["*", "http://a.example"], /\* .*alone/],
    [[], /cors: no origin given/],
    ["http://a.example", /cors must be true \(any origin\), false \(off\) or a list of origins/],
  ])("refuses cors: %j", async (cors, message) => {
    const started = startTestServer({ store: pets(), cors: cors as string[] });
    await expect(started).rejects.toThrow(ServerConfigError);
    await expect(started).rejects.toThrow(message);
  });
});

describe("--cors and --no-cors", () => {
  const flags = { file: "pets.json", port: "0", host: "127.0.0.1", key: ["k"] };

  it("normalizes the listed origins and turns CORS off with --no-cors", () => {
    expect(
      planServe({ ...flags, cors: "HTTP://A.test:80/, https://b.test:8443" }, {}).options.cors,
    ).toEqual(["http://a.test", "https://b.test:8443"]);
    expect(planServe({ ...flags, cors: "*" }, {}).options.cors).toBe(true);
    expect(planServe({ ...flags, cors: false }, {}).options.cors).toBe(false);
    expect(planServe(flags, {}).options.cors).toBe(true);
  });
});
