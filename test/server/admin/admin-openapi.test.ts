/**
 * GET /__admin/openapi.json: a valid OpenAPI 3.1 document (redocly's recommended
 * rules) that lists exactly the routes the control plane serves, and whose
 * schemas the live answers match (ajv).
 */
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Keyring } from "../../../src/server/auth.js";
import { FakeClock } from "../../../src/server/admin/clock.js";
import { ControlPlane } from "../../../src/server/admin/control-plane.js";
import { ADMIN_OPERATIONS } from "../../../src/server/admin/openapi.js";
import { RequestJournal } from "../../../src/server/admin/request-journal.js";
import { createAdminRoutes } from "../../../src/server/admin/routes.js";
import { DEFAULT_BAN_POLICY, RequestLimiter } from "../../../src/server/rate-limit.js";
import { createMemoryStore } from "../../../src/server/store/memory.js";
import { documentValidator, type DocumentValidator } from "../../schema/openapi-ajv.js";
import { call, startTestServer } from "../http.js";
import { admin, type AdminAnswer } from "./admin-http.js";

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

function routesServed(): string[] {
  const plane = new ControlPlane({
    store: createMemoryStore(),
    keys: [],
    keyring: new Keyring([]),
    limiter: new RequestLimiter(DEFAULT_BAN_POLICY),
    clock: new FakeClock(),
    journal: new RequestJournal(1),
    faults: { get: () => ({}), set: () => {} },
  });
  return createAdminRoutes(
    plane,
    { mode: "open" },
    { clock: new FakeClock(), count: () => {}, note: () => {} },
  ).routes;
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
  it("lists exactly the routes served, and is not the service's document", () => {
    expect([...ADMIN_OPERATIONS].sort()).toEqual(
      routesServed()
        .map((route) => route.replace("/__admin/keys/{key}", "/__admin/keys/{key}"))
        .sort(),
    );
    expect(Object.keys(document.paths).every((path) => path.startsWith("/__admin/"))).toBe(true);
    expect(JSON.parse(text)).toMatchObject({
      openapi: "3.1.0",
      servers: [{ url: new URL(server.url).origin }],
    });
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
      ["DELETE", "/requests"],
      ["POST", "/reset"],
      ["POST", "/reset", { body: "x", contentType: "text/plain" }],
      ["GET", "/openapi.json"],
      ["PATCH", "/faults"],
    ];
    for (const [method, target, options] of sent) {
      const answer = await admin(url, target, { method, ...options });
      const path = `/__admin${target.split("?")[0]!.replace(/^\/keys\/.+/, "/keys/{key}")}`;
      expectDocumented(method === "PATCH" ? "GET" : method, path, answer);
    }
  });
});
