import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiText } from "../../src/schema/openapi.js";
import { FAKE_SERVER_DESCRIPTION } from "../../src/server/openapi-route.js";
import { ERROR_CODES } from "../../src/schema/error-codes.js";
import { createMemoryStore } from "../../src/server/store/memory.js";
import { call, startTestServer, type Answer } from "./http.js";

const KEY = "test-key-enterprise";
let server: Awaited<ReturnType<typeof startTestServer>>;
let base: string;

beforeAll(async () => {
  server = await startTestServer({
    keys: [`${KEY}:enterprise`],
    store: createMemoryStore([
      { id: 1n, name: "Rex", categoryId: 1n, status: "available" },
      { id: 2n, name: "Tom", categoryId: 2n, status: "sold" },
      { id: 3n, name: "Kiwi", categoryId: 4n, status: "available" },
    ]),
  });
  base = server.url;
});
afterAll(() => server.close());

function expectError(answer: Answer, status: number, code: keyof typeof ERROR_CODES): string {
  expect(answer.status).toBe(status);
  expect(answer.headers["content-type"]).toBe("application/json");
  const body = JSON.parse(answer.text) as { code: string; message: string; status: number };
  expect(Object.keys(body)).toEqual(["code", "message", "status"]);
  expect(body.code).toBe(code);
  expect(body.status).toBe(status);
  expect(ERROR_CODES[code].status).toBe(status);
  expect(answer.headers["x-ratelimit-limit"]).toMatch(/^[0-9]+$/);
  expect(answer.headers["x-ratelimit-remaining"]).toMatch(/^[0-9]+$/);
  expect(answer.headers["x-ratelimit-reset"]).toMatch(/^[0-9]+$/);
  return body.message;
}

const post = (body: string, contentType?: string) =>
  call(base, "/v1/pets", { key: KEY, body, contentType });

describe("GET /v1/pets", () => {
  it("lists pets by id ascending with the rate-limit headers", async () => {
    const answer = await call(base, "/v1/pets?limit=2", { key: KEY });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/json");
    expect(answer.text).toBe(
      '[{"id":1,"name":"Rex","categoryId":1,"status":"available"},{"id":2,"name":"Tom","categoryId":2,"status":"sold"}]',
    );
    expect(Number(answer.headers["content-length"])).toBe(Buffer.byteLength(answer.text));
    expect(answer.headers["x-ratelimit-limit"]).toBe("2147483647");
  });

  it("filters by status", async () => {
    const answer = await call(base, "/v1/pets?status=available", { key: KEY });
    const ids = (JSON.parse(answer.text) as { id: number }[]).map((pet) => pet.id);
    expect(ids.slice(0, 2)).toEqual([1, 3]);
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=101", "limit"],
    ["limit=2.5", "limit"],
    ["limit=abc", "limit"],
    ["limit=-1", "limit"],
    ["status=lost", "status"],
    ["color=red", "color"],
    ["limit=1&limit=2", "limit"],
  ])("rejects %s with a message naming %s", async (query, field) => {
    const message = expectError(
      await call(base, `/v1/pets?${query}`, { key: KEY }),
      400,
      "invalid_query",
    );
    expect(message.startsWith(field)).toBe(true);
  });

  it("accepts escaped and reordered parameters through the full validation", async () => {
    const answer = await call(base, "/v1/pets?status=%73old&limit=%31", { key: KEY });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"name":"Tom"');
  });
});

describe("POST /v1/pets", () => {
  it("creates a pet with an assigned id and the default status", async () => {
    const answer = await post('{"name":"Nala","categoryId":2}');
    expect(answer.status).toBe(201);
    const pet = JSON.parse(answer.text) as Record<string, unknown>;
    expect(pet).toMatchObject({ name: "Nala", categoryId: 2, status: "available" });
    expect(typeof pet.id).toBe("number");
    expect(answer.headers.location).toBe(`/v1/pets/${pet.id}`);
    const fetched = await call(base, `/v1/pets/${pet.id}`, { key: KEY });
    expect(fetched.text).toBe(answer.text);
  });

  it("shows a created pet in the very next list", async () => {
    const before = await call(base, "/v1/pets?limit=100&status=pending", { key: KEY });
    const created = await post('{"name":"Fresh","categoryId":5,"status":"pending"}');
    const after = await call(base, "/v1/pets?limit=100&status=pending", { key: KEY });
    expect(after.text).not.toBe(before.text);
    expect(after.text).toContain(created.text);
  });

  it("keeps int64 values exact end to end", async () => {
    const answer = await post('{"name":"Big","categoryId":9223372036854775807,"status":"pending"}');
    expect(answer.status).toBe(201);
    expect(answer.text).toContain('"categoryId":9223372036854775807');
    const id = (answer.json() as { id: bigint }).id;
    const fetched = await call(base, `/v1/pets/${id}`, { key: KEY });
    expect(fetched.text).toContain('"categoryId":9223372036854775807,');
  });

  it("accepts application/json with charset utf-8 in any case", async () => {
    const answer = await post('{"name":"Case","categoryId":1}', "Application/JSON; Charset=UTF-8");
    expect(answer.status).toBe(201);
  });

  it.each([
    ['{"categoryId":1}', "name is required"],
    ['{"name":"A"}', "categoryId is required"],
    ['{"name":5,"categoryId":1}', "name must be"],
    ['{"name":"A","categoryId":1.5}', "categoryId must be"],
    ['{"name":"A","categoryId":"12"}', 'the string "12"'],
    ['{"name":"A","categoryId":1,"color":"red"}', "color unknown field"],
    [
      '{"name":"A","categoryId":1,"status":"lost"}',
      "status must be one of available, pending, sold",
    ],
    ['{"name":"A","categoryId":9223372036854775808}', "categoryId must be"],
    ['{"name":"A","categoryId":1,"__proto__":{"admin":true}}', "__proto__ unknown field"],
    ['{"name":"A","categoryId":1,"constructor":1}', "constructor unknown field"],
    ["[1,2]", "body must be a JSON object"],
  ])("rejects %s as invalid_body (%s)", async (body, expected) => {
    const message = expectError(await post(body), 400, "invalid_body");
    expect(message).toContain(expected);
  });

  it("says where malformed JSON breaks", async () => {
    const message = expectError(await post('{\n  "name": "A",\n  oops\n}'), 400, "invalid_json");
    expect(message).toContain("line 3, column 3");
  });

  it("rejects bodies that are not UTF-8", async () => {
    const bytes = Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]);
    expectError(await call(base, "/v1/pets", { key: KEY, body: bytes }), 400, "invalid_json");
  });

  it.each(["", "  \n"])("rejects an empty body %j", async (body) => {
    expectError(await post(body), 400, "empty_body");
  });

  it.each(["text/plain", "application/xml", "application/json; charset=latin1"])(
    "rejects Content-Type %s with 415",
    async (type) => {
      expectError(await post('{"name":"A","categoryId":1}', type), 415, "unsupported_media_type");
    },
  );

  it("rejects a body without Content-Type with 415", async () => {
    const answer = await call(base, "/v1/pets", {
      key: KEY,
      body: '{"name":"A","categoryId":1}',
      contentType: null,
    });
    expectError(answer, 415, "unsupported_media_type");
  });
});

describe("GET /v1/pets/{petId}", () => {
  it("returns the pet with the deprecation headers", async () => {
    const answer = await call(base, "/v1/pets/2", { key: KEY });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('{"id":2,"name":"Tom","categoryId":2,"status":"sold"}');
    expect(answer.headers.deprecation).toBe("@1735689600");
    expect(answer.headers.sunset).toBe("Thu, 05 Dec 2030 00:00:00 GMT");
    expect(answer.headers.link).toBe('</v1/pets>; rel="successor-version"');
  });

  it("answers 404 pet_not_found for an unknown id, deprecation headers included", async () => {
    const answer = await call(base, "/v1/pets/9223372036854775807", { key: KEY });
    expectError(answer, 404, "pet_not_found");
    expect(answer.headers.sunset).toBe("Thu, 05 Dec 2030 00:00:00 GMT");
  });

  it.each(["abc", "1.5", "9223372036854775808", "01", "%20"])(
    "answers 400 invalid_pet_id for %s",
    async (id) => {
      const message = expectError(
        await call(base, `/v1/pets/${id}`, { key: KEY }),
        400,
        "invalid_pet_id",
      );
      expect(message.startsWith("petId must be an integer")).toBe(true);
    },
  );

  it("accepts negative int64 ids (and finds nothing)", async () => {
    expectError(await call(base, "/v1/pets/-5", { key: KEY }), 404, "pet_not_found");
  });
});

describe("other paths and methods", () => {
  it.each(["/v1", "/v1/pets/", "/v1/pets/1/extra", "/v2/pets", "/v1/PETS"])(
    "answers 404 not_found for %s",
    async (path) => {
      expectError(await call(base, path, { key: KEY }), 404, "not_found");
    },
  );

  it.each([
    ["DELETE", "/v1/pets", "GET, HEAD, POST"],
    ["PUT", "/v1/pets/1", "GET, HEAD"],
    ["POST", "/v1/pets/1", "GET, HEAD"],
    ["OPTIONS", "/v1/pets", "GET, HEAD, POST"],
    ["POST", "/v1/openapi.json", "GET, HEAD"],
  ])("answers 405 for %s %s with Allow", async (method, path, allow) => {
    const answer = await call(base, path, { key: KEY, method });
    expectError(answer, 405, "method_not_allowed");
    expect(answer.headers.allow).toBe(allow);
  });

  it("answers HEAD like GET without a body", async () => {
    const get = await call(base, "/v1/pets?limit=3", { key: KEY });
    const head = await call(base, "/v1/pets?limit=3", { key: KEY, method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect(head.headers["content-length"]).toBe(get.headers["content-length"]);
    expect(head.headers["x-ratelimit-limit"]).toBe("2147483647");
    const headOne = await call(base, "/v1/pets/1", { key: KEY, method: "HEAD" });
    expect(headOne.status).toBe(200);
    expect(headOne.headers.deprecation).toBe("@1735689600");
  });

  it("serves the OpenAPI document without a key", async () => {
    const answer = await call(base, "/v1/openapi.json");
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(openApiText([{ url: base, description: FAKE_SERVER_DESCRIPTION }]));
    expect(answer.headers["x-ratelimit-limit"]).toBe("60");
  });
});

describe("authentication", () => {
  it("answers 401 unauthorized with a bare challenge when no key is sent", async () => {
    const answer = await call(base, "/v1/pets");
    expectError(answer, 401, "unauthorized");
    expect(answer.headers["www-authenticate"]).toBe('Bearer realm="petstore"');
  });

  it("treats another scheme as no key", async () => {
    const answer = await call(base, "/v1/pets", { headers: { authorization: `Basic ${KEY}` } });
    expectError(answer, 401, "unauthorized");
  });

  it("answers 401 invalid_key with error=invalid_token for a wrong key of the same length", async () => {
    const wrong = KEY.slice(0, -1) + (KEY.endsWith("e") ? "f" : "e");
    expect(wrong).toHaveLength(KEY.length);
    const answer = await call(base, "/v1/pets", { key: wrong });
    expectError(answer, 401, "invalid_key");
    expect(answer.headers["www-authenticate"]).toBe(
      'Bearer realm="petstore", error="invalid_token"',
    );
  });

  it("answers 401 before 404 on unknown paths", async () => {
    expectError(await call(base, "/nowhere"), 401, "unauthorized");
  });

  it.each(["bearer", "BEARER", "BeArEr"])("accepts the scheme written %s", async (scheme) => {
    const answer = await call(base, "/v1/pets", { headers: { authorization: `${scheme} ${KEY}` } });
    expect(answer.status).toBe(200);
  });

  it("never writes a key or a query to the log", async () => {
    const quietless = await startTestServer({ keys: ["log-secret-key"], quiet: false });
    try {
      await call(quietless.url, "/v1/pets?limit=7", { key: "log-secret-key" });
      await call(quietless.url, "/v1/pets", { key: "wrong-secret-key" });
      await quietless.close();
      const log = quietless.logText();
      expect(log).toMatch(/GET \/v1\/pets 200 [0-9.]+ms/);
      expect(log).toMatch(/GET \/v1\/pets 401 /);
      expect(log).not.toContain("secret");
      expect(log).not.toContain("limit=7");
    } finally {
      await quietless.close();
    }
  });
});

describe("statistics", () => {
  it("counts responses by status", async () => {
    const before = server.stats();
    await call(base, "/v1/pets", { key: KEY });
    await call(base, "/v1/pets/zzz", { key: KEY });
    const after = server.stats();
    expect(after.responses - before.responses).toBe(2);
    expect((after.byStatus[200] ?? 0) - (before.byStatus[200] ?? 0)).toBe(1);
    expect((after.byStatus[400] ?? 0) - (before.byStatus[400] ?? 0)).toBe(1);
  });
});
