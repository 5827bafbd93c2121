/**
 * The served document against real `petstore serve` processes: a request built
 * from the document's examples gets the documented success status, and every
 * documented response (bar 500, which a healthy fake never sends) is produced for
 * real and matches its schema and its required headers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type Answer, type Call } from "../server/http.js";
import { documentValidator, type DocumentValidator } from "./openapi-ajv.js";
import { operations, resolve, type Node, type Operation } from "./openapi-walk.js";
import { SERVE_KEY, startServe, type ServeProcess } from "./serve-process.js";

const LIMITED_KEY = "openapi-limited-key";
/** One pet with the largest int64 id: no id is left for a new one. */
const FULL_FILE =
  '[\n{"id":9223372036854775807,"name":"Max","categoryId":1,"status":"available"}\n]\n';

let main: ServeProcess;
let faulty: ServeProcess;
let full: ServeProcess;
let doc: Node;
let validator: DocumentValidator;
let byId: Map<string, Operation>;

beforeAll(async () => {
  [main, faulty, full] = await Promise.all([
    startServe(["--seed", "5", "--key", `${LIMITED_KEY}:enterprise:1/1`]),
    startServe(["--fail-rate", "1", "--fail-mode", "503"]),
    startServe(["--sunset", "now"], FULL_FILE),
  ]);
  doc = JSON.parse((await call(main.baseUrl, "/v1/openapi.json")).text) as Node;
  validator = documentValidator(doc);
  byId = new Map(operations(doc).map((op) => [String(op.operation.operationId), op]));
});
afterAll(() => Promise.all([main, faulty, full].map((serve) => serve?.stop())));

/** The request the document's examples make: path and query from the parameter examples. */
function exampleRequest({ path, method, operation }: Operation): { path: string; call: Call } {
  let url = "/v1" + path;
  const query = new URLSearchParams();
  for (const parameter of (operation.parameters ?? []) as Node[]) {
    const p = resolve(doc, parameter);
    const value = String(p.example);
    if (p.in === "path") url = url.replace(`{${String(p.name)}}`, encodeURIComponent(value));
    else query.set(String(p.name), value);
  }
  const request: Call = { method: method.toUpperCase(), key: SERVE_KEY };
  if (operation.requestBody !== undefined) {
    const media = (resolve(doc, operation.requestBody).content as Record<string, Node>)[
      "application/json"
    ]!;
    const first = Object.values(media.examples as Node)[0] as { value: unknown };
    request.body = JSON.stringify(first.value);
  }
  return { path: query.size > 0 ? `${url}?${query}` : url, call: request };
}

/** The answer is the documented response for its status: body schema, required headers. */
function expectDocumented(op: Operation, answer: Answer): void {
  const where = `${op.method} ${op.path} ${answer.status}`;
  const documented = (op.operation.responses as Node)[String(answer.status)];
  expect(documented, `${where} is not documented: ${answer.text}`).toBeDefined();
  const response = resolve(doc, documented);
  const media = (response.content as Record<string, Node>)["application/json"]!;
  expect(answer.headers["content-type"], where).toBe("application/json");
  const body = validator.inline(media.schema as object);
  expect(body(JSON.parse(answer.text)), `${where}: ${JSON.stringify(body.errors)}`).toBe(true);
  for (const [name, header] of Object.entries(response.headers as Node)) {
    const h = resolve(doc, header);
    const value = answer.headers[name.toLowerCase()];
    if (h.required !== true && value === undefined) continue;
    expect(value, `${where} ${name}`).toBeTypeOf("string");
    const schema = h.schema as Node;
    const typed = schema.type === "integer" ? Number(value) : value;
    const check = validator.inline(schema);
    expect(check(typed), `${where} ${name}: ${String(value)}`).toBe(true);
  }
}

async function exhaustLimitedKey(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const answer = await call(main.baseUrl, "/v1/pets?limit=1", { key: LIMITED_KEY });
    if (answer.status === 429) return;
  }
  throw new Error("the limited key never ran out");
}

describe("the served document against the fake", () => {
  it("a request built from the examples gets the documented success status", async () => {
    const expected = { listPets: 200, createPet: 201, getPet: 200 };
    for (const [id, status] of Object.entries(expected)) {
      const op = byId.get(id)!;
      const { path, call: request } = exampleRequest(op);
      const answer = await call(main.baseUrl, path, request);
      expect(answer.status, `${id} ${path}: ${answer.text}`).toBe(status);
      expectDocumented(op, answer);
    }
  });

  it("sends exactly the documented Deprecation, Sunset and Link of getPet", async () => {
    const answer = await call(main.baseUrl, "/v1/pets/1", { key: SERVE_KEY });
    const headers = (doc.components as { headers: Record<string, { example: string }> }).headers;
    for (const name of ["Deprecation", "Sunset", "Link"]) {
      expect(answer.headers[name.toLowerCase()], name).toBe(headers[name]!.example);
    }
  });

  it("each documented error response is what the fake sends", async () => {
    const seen = new Map<string, Set<string>>();
    const check = async (id: string, base: string, path: string, request: Call, status: number) => {
      const answer = await call(base, path, request);
      expect(answer.status, `${id} ${path}: ${answer.text}`).toBe(status);
      expectDocumented(byId.get(id)!, answer);
      if (!seen.has(id)) seen.set(id, new Set());
      seen.get(id)!.add(String(status));
    };
    const key = SERVE_KEY;
    const post = (body: string, extra: Call = {}): Call => ({ key, body, ...extra });
    const pet = '{"name":"Rex","categoryId":1}';

    await check("listPets", main.baseUrl, "/v1/pets?limit=500", { key }, 400);
    await check("getPet", main.baseUrl, "/v1/pets/abc", { key }, 400);
    await check("getPet", main.baseUrl, "/v1/pets/404", { key }, 404);
    await check("createPet", main.baseUrl, "/v1/pets", post('{"name":"   ","categoryId":1}'), 400);
    await check("createPet", main.baseUrl, "/v1/pets", post("{"), 400);
    await check("createPet", main.baseUrl, "/v1/pets", post(""), 400);
    const huge = `{"name":"${"x".repeat(1024 * 1024)}","categoryId":1}`;
    await check("createPet", main.baseUrl, "/v1/pets", post(huge), 413);
    await check(
      "createPet",
      main.baseUrl,
      "/v1/pets",
      post(pet, { contentType: "text/plain" }),
      415,
    );
    await check("createPet", full.baseUrl, "/v1/pets", post(pet), 507);
    // That fake's sunset is its start: GET /pets/{petId} is gone.
    await check("getPet", full.baseUrl, "/v1/pets/1", { key }, 410);
    for (const [id, path, body] of [
      ["listPets", "/v1/pets", undefined],
      ["createPet", "/v1/pets", pet],
      ["getPet", "/v1/pets/1", undefined],
    ] as const) {
      const request: Call = body === undefined ? {} : { body };
      await check(id, main.baseUrl, path, request, 401);
      await check(id, main.baseUrl, path, { ...request, key: "not-a-key" }, 401);
      await check(id, faulty.baseUrl, path, { ...request, key }, 503);
      await exhaustLimitedKey();
      await check(id, main.baseUrl, path, { ...request, key: LIMITED_KEY }, 429);
    }

    for (const { operation } of operations(doc)) {
      const id = String(operation.operationId);
      const documented = Object.keys(operation.responses as Node).filter((s) => !s.startsWith("2"));
      const unseen = documented.filter((status) => !seen.get(id)?.has(status));
      expect(unseen, id).toEqual(["500"]);
    }
  });
});
