import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument, openApiText } from "../../scripts/openapi/document.js";
import { openApiText as servedText } from "../../src/schema/openapi.js";
import { PET_STATUSES } from "../../src/schema/pet.js";
import { nodes, operations, resolve, responses, type Node } from "./openapi-walk.js";

const doc = buildOpenApiDocument() as Node;
const schemas = (doc.components as { schemas: Record<string, Node> }).schemas;

describe("openapi.json", () => {
  it("is current with the zod schemas (run `npm run openapi` to refresh)", () => {
    const committed = readFileSync(new URL("../../openapi.json", import.meta.url), "utf8");
    expect(committed).toBe(openApiText());
  });

  it("is served as committed when no server is put first", () => {
    const committed = readFileSync(new URL("../../openapi.json", import.meta.url), "utf8");
    expect(servedText()).toBe(committed);
  });

  it("keeps production and staging as its servers", () => {
    const committed = JSON.parse(
      readFileSync(new URL("../../openapi.json", import.meta.url), "utf8"),
    ) as { servers: { description: string }[] };
    expect(committed.servers.map((s) => s.description)).toEqual(["production", "staging"]);
  });

  it("puts a given server first, before production and staging", () => {
    const served = JSON.parse(
      servedText([{ url: "http://127.0.0.1:4010/v1", description: "this fake" }]),
    ) as { servers: { url: string }[] };
    expect(served.servers.map((s) => s.url)).toEqual([
      "http://127.0.0.1:4010/v1",
      "{base_url}",
      "{staging_base_url}",
    ]);
  });

  it("describes int64 fields and the deprecated getPet", () => {
    const pet = schemas.Pet as { properties: Record<string, Node>; required: string[] };
    expect(pet.properties.id).toMatchObject({ type: "integer", format: "int64" });
    expect(pet.required).toEqual(["id", "name", "categoryId"]);
    const getPet = (doc.paths as Record<string, { get: Node }>)["/pets/{petId}"]!.get;
    expect(getPet.deprecated).toBe(true);
  });
});

describe("headers", () => {
  const requiredHeader = (header: unknown) => resolve(doc, header).required === true;

  it("declares the X-RateLimit headers required, on every response of every operation", () => {
    for (const { path, method, operation } of operations(doc)) {
      for (const [status, response] of responses(doc, operation)) {
        const headers = (response.headers ?? {}) as Node;
        for (const name of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]) {
          expect(requiredHeader(headers[name]), `${method} ${path} ${status} ${name}`).toBe(true);
        }
      }
    }
  });

  it("declares Deprecation, Sunset and Link required on every response of getPet", () => {
    const getPet = (doc.paths as Record<string, { get: Node }>)["/pets/{petId}"]!.get;
    const all = responses(doc, getPet);
    expect(all.map(([status]) => status)).toEqual(
      expect.arrayContaining(["200", "400", "401", "404", "429", "500", "503"]),
    );
    for (const [status, response] of all) {
      const headers = response.headers as Node;
      for (const name of ["Deprecation", "Sunset", "Link"]) {
        expect(requiredHeader(headers[name]), `getPet ${status} ${name}`).toBe(true);
      }
    }
  });

  it("declares Location required on 201, Retry-After required on 429", () => {
    const pets = (doc.paths as Record<string, Record<string, Node>>)["/pets"]!;
    const created = resolve(doc, (pets.post!.responses as Node)["201"]);
    expect(requiredHeader((created.headers as Node).Location)).toBe(true);
    const limited = resolve(doc, (pets.get!.responses as Node)["429"]);
    expect(requiredHeader((limited.headers as Node)["Retry-After"])).toBe(true);
  });
});

describe("responses", () => {
  it("bounds a page at 100 items", () => {
    const list = (doc.paths as Record<string, Record<string, Node>>)["/pets"]!.get!;
    const ok = resolve(doc, (list.responses as Node)["200"]);
    const schema = (ok.content as Record<string, { schema: Node }>)["application/json"]!.schema;
    expect(schema).toMatchObject({ type: "array", maxItems: 100 });
  });

  it("declares 500 and 503 on every operation and 507 on createPet, each with the Error shape", () => {
    for (const { path, method, operation } of operations(doc)) {
      const all = new Map(responses(doc, operation));
      const expected =
        operation.operationId === "createPet" ? ["500", "503", "507"] : ["500", "503"];
      for (const status of expected) {
        const content = all.get(status)?.content as Record<string, { schema: Node }> | undefined;
        expect(content?.["application/json"]?.schema, `${method} ${path} ${status}`).toEqual({
          $ref: "#/components/schemas/Error",
        });
      }
    }
    const create = (doc.paths as Record<string, Record<string, Node>>)["/pets"]!.post!;
    const storage = resolve(doc, (create.responses as Node)["507"]).content as Record<
      string,
      { examples: Record<string, { value: Node }> }
    >;
    expect(Object.values(storage["application/json"]!.examples)[0]!.value).toMatchObject({
      code: "id_space_exhausted",
      status: 507,
    });
  });
});

describe("schemas", () => {
  it("has PetStatus once, as a component, and $refs to it everywhere else", () => {
    const enums = [...nodes(doc)].filter(([, node]) => Array.isArray(node.enum));
    expect(enums.map(([pointer]) => pointer)).toEqual(["#/components/schemas/PetStatus"]);
    expect(schemas.PetStatus!.enum).toEqual([...PET_STATUSES]);
    const refs = [...nodes(doc)].filter(([, n]) => n.$ref === "#/components/schemas/PetStatus");
    expect(refs.map(([pointer]) => pointer).sort()).toEqual([
      "#/components/schemas/NewPet/properties/status",
      "#/components/schemas/Pet/properties/status",
      "#/paths/~1pets/get/parameters/1/schema",
    ]);
  });

  it("leaves response schemas open to new fields and keeps the request schema closed", () => {
    expect(schemas.NewPet!.additionalProperties).toBe(false);
    for (const name of ["Pet", "Error"]) {
      expect(schemas[name], name).not.toHaveProperty("additionalProperties");
    }
    const closed = [...nodes(doc)].filter(([, node]) => node.additionalProperties === false);
    expect(closed.map(([pointer]) => pointer)).toEqual(["#/components/schemas/NewPet"]);
  });

  it("says a name is not only white space, as the fake checks", () => {
    const name = (schemas.NewPet!.properties as Record<string, Node>).name!;
    expect(name).toMatchObject({ type: "string", minLength: 1, maxLength: 200, pattern: "\\S" });
  });
});
