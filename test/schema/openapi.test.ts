import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument, openApiText } from "../../src/schema/openapi.js";

describe("openapi.json", () => {
  it("is current with the zod schemas (run `npm run openapi` to refresh)", () => {
    const committed = readFileSync(new URL("../../openapi.json", import.meta.url), "utf8");
    expect(committed).toBe(openApiText());
  });

  it("describes int64 fields and the deprecated getPet", () => {
    const doc = buildOpenApiDocument() as {
      components: { schemas: { Pet: { properties: Record<string, unknown>; required: string[] } } };
      paths: Record<string, { get: { deprecated?: boolean } }>;
    };
    expect(doc.components.schemas.Pet.properties.id).toEqual({ type: "integer", format: "int64" });
    expect(doc.components.schemas.Pet.required).toEqual(["id", "name", "categoryId"]);
    expect(doc.paths["/pets/{petId}"]!.get.deprecated).toBe(true);
  });
});
