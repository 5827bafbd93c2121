import fc from "fast-check";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStore } from "../../src/server/store/memory.js";
import { demoPets } from "../../src/server/demo-pets.js";
import { call, startTestServer, type Answer } from "./http.js";

const KEY = "fuzz-key";
let server: Awaited<ReturnType<typeof startTestServer>>;

beforeAll(async () => {
  server = await startTestServer({
    keys: [`${KEY}:enterprise`],
    store: createMemoryStore(demoPets(50)),
  });
});
afterAll(() => server.close());

function expectWellFormed(answer: { status: number; text: string; contentType?: string }): void {
  expect(answer.status).toBeGreaterThanOrEqual(200);
  expect(answer.status).toBeLessThan(500);
  if (answer.status >= 400) {
    expect(answer.contentType).toBe("application/json");
    const body = JSON.parse(answer.text) as { code: unknown; message: unknown; status: unknown };
    expect(typeof body.code).toBe("string");
    expect(typeof body.message).toBe("string");
    expect(body.status).toBe(answer.status);
  }
}

const fromAnswer = (answer: Answer) => ({
  status: answer.status,
  text: answer.text,
  contentType: answer.headers["content-type"],
});

const prototypeKeys = fc.constantFrom("__proto__", "constructor", "prototype", "toString");
const hugeNumbers = fc.oneof(
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
  fc.constantFrom(
    "1e999999",
    "-0",
    "0.0000001",
    "123456789012345678901234567890.5",
    "-9223372036854775809",
  ),
);
const jsonText = fc.oneof(
  fc.json(),
  fc.string(),
  fc.string({ unit: "binary" }),
  hugeNumbers,
  fc
    .record({
      name: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
      categoryId: fc.oneof(
        hugeNumbers,
        fc.string().map((s) => JSON.stringify(s)),
      ),
      status: fc.oneof(fc.constantFrom('"available"', '"sold"', '"lost"', "1", "null")),
      extra: prototypeKeys,
    })
    .map(
      ({ name, categoryId, status, extra }) =>
        `{"name":${JSON.stringify(name)},"categoryId":${categoryId},"status":${status},"${extra}":{"polluted":true}}`,
    ),
  fc.nat({ max: 400 }).map((depth) => "[".repeat(depth) + "]".repeat(depth)),
  fc.nat({ max: 400 }).map((depth) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth)),
);

describe("fuzzing the fake", () => {
  it("answers random POST bodies with 201 or a 4xx Error, never 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(jsonText, async (body) => {
        expectWellFormed(fromAnswer(await call(server.url, "/v1/pets", { key: KEY, body })));
      }),
      { numRuns: 300 },
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("answers random query strings of GET /pets with 200 or 400", async () => {
    const pair = fc.tuple(
      fc.oneof(fc.constantFrom("limit", "status", "__proto__", "limit[]"), fc.string()),
      fc.oneof(
        fc.constantFrom("1", "100", "101", "0", "available", "sold", "01", "1e1"),
        fc.string(),
      ),
    );
    const query = fc.oneof(
      fc.webQueryParameters(),
      fc
        .array(pair, { maxLength: 4 })
        .map((pairs) =>
          pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&"),
        ),
    );
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        const answer = await call(server.url, `/v1/pets?${q}`, { key: KEY });
        expect([200, 400]).toContain(answer.status);
        expectWellFormed(fromAnswer(answer));
      }),
      { numRuns: 200 },
    );
  });

  it("answers random request targets, even broken ones, without a 5xx", async () => {
    const target = fc.oneof(
      fc.webPath().map((path) => "/v1/pets" + path),
      fc.webPath(),
      fc.string({ unit: "binary-ascii" }).map((s) => "/v1/pets/" + s.replace(/[\r\n]/g, "")),
      fc.string().map((s) => "/" + s),
    );
    const method = fc.constantFrom("GET", "HEAD", "POST", "DELETE", "PATCH");
    await fc.assert(
      fc.asyncProperty(target, method, async (path, verb) => {
        const response = await rawRequest(
          `${verb} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
        );
        const headEnd = response.indexOf("\r\n\r\n");
        const head = response.slice(0, headEnd);
        const status = Number(head.split(" ")[1]);
        const contentType = /\r\ncontent-type: ([^\r]*)/i.exec(head)?.[1];
        if (verb === "HEAD") {
          expect(status).toBeGreaterThanOrEqual(200);
          expect(status).toBeLessThan(500);
        } else {
          expectWellFormed({ status, text: response.slice(headEnd + 4), contentType });
        }
      }),
      { numRuns: 200 },
    );
    expect((await call(server.url, "/v1/pets/1", { key: KEY })).status).toBe(200);
  });
});

function rawRequest(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1");
    let received = "";
    socket.on("data", (data) => (received += data.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => resolve(received));
    socket.end(Buffer.from(text, "latin1"));
  });
}
