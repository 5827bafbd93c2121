/**
 * GET /__admin/openapi.json: admin-openapi.json as committed, current with the
 * route table (scripts/openapi/admin.ts), with the fake as its server; a valid
 * OpenAPI 3.1 document (redocly's recommended rules) that lists exactly the routes the control
 * plane serves (each path answers exactly its documented methods), and whose
 * schemas every success answer of every route, and the errors met, match (ajv).
 */
import { readFileSync } from "node:fs";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiText } from "../../../scripts/openapi/admin.js";
import { documentValidator, type DocumentValidator } from "../../schema/openapi-ajv.js";
import { call, startTestServer } from "../http.js";
import { admin, ADMIN_OPERATIONS, type AdminAnswer } from "./admin-http.js";

const KEY = "openapi-admin-key";
let server: Awaited<ReturnType<typeof startTestServer>>;
let text: string;
let document: {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>
  >;
};
let validator: DocumentValidator;

beforeAll(async () => {
  server = await startTestServer({ keys: [`${KEY}:pro`], seed: 2 });
  const answer = await admin(server.url, "/openapi.json");
  expect(answer.status).toBe(200);
  text = answer.text;
  document = JSON.parse(text) as typeof document;
  validator = documentValidator(document);
});
afterAll(() => server.close());

/** "METHOD /path" of every operation in the document. */
function documented(): string[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/** Checks `answer` against the documented response of `METHOD path` for its status. */
function expectDocumented(method: string, path: string, answer: AdminAnswer): void {
  const response = document.paths[path]?.[method.toLowerCase()]?.responses[String(answer.status)];
  expect(response, `${method} ${path} documents ${answer.status}`).toBeDefined();
  const schema = response!.content?.["application/json"]?.schema;
  if (schema === undefined) {
    expect(answer.text).toBe("");
    return;
  }
  const validate = validator.inline(schema);
  expect(validate(JSON.parse(answer.text)), JSON.stringify(validate.errors)).toBe(true);
}

describe("the control plane's OpenAPI document", () => {
  it("is admin-openapi.json, current with the route table (run `npm run openapi` to refresh)", () => {
    const committed = readFileSync(new URL("../../../admin-openapi.json", import.meta.url), "utf8");
    expect(committed).toBe(openApiText());
    const servers = [
      { url: new URL(server.url).origin, description: "this fake (petstore serve)" },
    ];
    expect(JSON.parse(text)).toEqual({ ...JSON.parse(committed), servers });
  });

  it("lists every route of the table, and only /__admin routes, with the fake as its server", () => {
    expect(documented().sort()).toEqual([...ADMIN_OPERATIONS].sort());
    expect(Object.keys(document.paths).every((path) => path.startsWith("/__admin/"))).toBe(true);
    expect(JSON.parse(text)).toMatchObject({
      openapi: "3.1.0",
      servers: [{ url: new URL(server.url).origin }],
    });
  });

  it("lists exactly the methods each path answers", async () => {
    for (const [path, methods] of Object.entries(document.paths)) {
      const target = path.replace("/__admin", "").replace("{key}", "some-key");
      const answer = await admin(server.url, target, { method: "PATCH" });
      expect(answer.status, path).toBe(405);
      const allowed = Object.keys(methods).flatMap((method) =>
        method === "get" ? ["GET", "HEAD"] : [method.toUpperCase()],
      );
      expect(answer.headers.allow?.split(", ").sort(), path).toEqual(allowed.sort());
    }
  });

  it("passes redocly's recommended rules without an error", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({
      source: text,
      absoluteRef: "/admin-openapi.json",
      config,
    });
    const errors = problems.filter((problem) => problem.severity === "error");
    expect(
      errors.map(
        (problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`,
      ),
    ).toEqual([]);
  });

  it("describes what every route really answers", async () => {
    const { url } = server;
    await call(url, "/v1/pets", { key: KEY, body: '{"name":"Doc","categoryId":1}' });
    await call(url, "/v1/pets?limit=1", { key: KEY });
    const sent: Array<[string, string, Parameters<typeof admin>[2]?]> = [
      ["GET", "/health"],
      ["GET", "/requests"],
      ["GET", "/requests?status=abc"],
      ["GET", "/clock"],
      ["POST", "/clock", { json: { advanceSeconds: 1 } }],
      ["POST", "/clock", { json: { advanceSeconds: "x" } }],
      ["GET", "/faults"],
      ["PUT", "/faults", { json: { latencyMs: null, failRate: 0 } }],
      ["PUT", "/faults", { body: "{", contentType: "application/json" }],
      ["GET", "/keys"],
      ["POST", "/keys", { json: { key: "documented-key", plan: "business" } }],
      ["POST", "/keys", { json: { key: "documented-key", plan: "free" } }],
      ["DELETE", "/keys/documented-key"],
      ["DELETE", "/keys/documented-key"],
      ["POST", "/next", { json: { match: { path: "/v1/pets/1" }, answer: { status: 404 } } }],
      ["POST", "/next", { json: { answer: { status: 418 } } }],
      ["GET", "/next"],
      ["GET", "/verdict"],
      ["DELETE", "/next"],
      ["DELETE", "/requests"],
      ["POST", "/reset"],
      ["POST", "/reset", { body: "x", contentType: "text/plain" }],
      ["GET", "/openapi.json"],
      ["PATCH", "/faults"],
    ];
    const met = new Set<string>();
    for (const [method, target, options] of sent) {
      const answer = await admin(url, target, { method, ...options });
      const path = `/__admin${target.split("?")[0]!.replace(/^\/keys\/.+/, "/keys/{key}")}`;
      expectDocumented(method === "PATCH" ? "GET" : method, path, answer);
      met.add(`${method} ${path} ${answer.status}`);
    }
    // Every answer the document gives a route, other than its errors, was met above.
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, { responses }] of Object.entries(methods)) {
        for (const status of Object.keys(responses).filter((status) => Number(status) < 400)) {
          expect([...met]).toContain(`${method.toUpperCase()} ${path} ${status}`);
        }
      }
    }
  });
});
