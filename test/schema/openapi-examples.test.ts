/**
 * Every parameter, header, request body and response of the document has an
 * example, and every example is valid against its own schema: what a testing tool
 * (dredd) or a mock server (Prism) sends and expects, taken from the document alone.
 */
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../scripts/openapi/document.js";
import { ERROR_CODES } from "../../src/schema/error-codes.js";
import { documentValidator } from "./openapi-ajv.js";
import { operations, resolve, responses, type Node } from "./openapi-walk.js";

const doc = buildOpenApiDocument() as Node;
const validator = documentValidator(doc);

function expectValid(schema: unknown, value: unknown, where: string): void {
  const validate = validator.inline(schema as object);
  expect(validate(value), `${where}: ${JSON.stringify(validate.errors)}`).toBe(true);
}

/** The example values of a media type object (`example` or every `examples` entry). */
function mediaExamples(document: Node, media: Node): unknown[] {
  if ("example" in media) return [media.example];
  return Object.values((media.examples ?? {}) as Node).map((e) => resolve(document, e).value);
}

describe("examples in the document", () => {
  it("every parameter has an example its schema accepts", () => {
    let count = 0;
    for (const { path, method, operation } of operations(doc)) {
      for (const parameter of (operation.parameters ?? []) as Node[]) {
        const p = resolve(doc, parameter);
        const where = `${method} ${path} ${String(p.name)}`;
        expect(p, where).toHaveProperty("example");
        expectValid(p.schema, p.example, where);
        count++;
      }
    }
    expect(count).toBe(3);
  });

  it("every request body has examples its schema accepts", () => {
    for (const { path, method, operation } of operations(doc)) {
      if (operation.requestBody === undefined) continue;
      const body = resolve(doc, operation.requestBody);
      for (const [type, media] of Object.entries(body.content as Record<string, Node>)) {
        const examples = mediaExamples(doc, media);
        expect(examples.length, `${method} ${path} ${type}`).toBeGreaterThan(0);
        for (const value of examples) expectValid(media.schema, value, `${method} ${path}`);
      }
    }
  });

  it("every response has a body example its schema accepts, and error examples carry its status", () => {
    let count = 0;
    for (const { path, method, operation } of operations(doc)) {
      for (const [status, response] of responses(doc, operation)) {
        const where = `${method} ${path} ${status}`;
        const content = response.content as Record<string, Node> | undefined;
        expect(content, where).toBeDefined();
        for (const media of Object.values(content!)) {
          const examples = mediaExamples(doc, media);
          expect(examples.length, where).toBeGreaterThan(0);
          for (const value of examples) {
            expectValid(media.schema, value, where);
            if (status.startsWith("2")) continue;
            const error = value as { code: keyof typeof ERROR_CODES; status: number };
            expect(error.status, where).toBe(Number(status));
            expect(ERROR_CODES[error.code]?.status, `${where} ${error.code}`).toBe(Number(status));
            count++;
          }
        }
      }
    }
    expect(count).toBeGreaterThan(20);
  });

  it("every header of every response has an example its schema accepts", () => {
    const seen = new Set<string>();
    for (const { path, method, operation } of operations(doc)) {
      for (const [status, response] of responses(doc, operation)) {
        for (const [name, header] of Object.entries((response.headers ?? {}) as Node)) {
          const h = resolve(doc, header);
          const where = `${method} ${path} ${status} ${name}`;
          expect(h, where).toHaveProperty("example");
          expectValid(h.schema, h.example, where);
          seen.add(name);
        }
      }
    }
    expect([...seen].sort()).toEqual([
      "Deprecation",
      "Link",
      "Location",
      "Retry-After",
      "Sunset",
      "WWW-Authenticate",
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
      "X-RateLimit-Reset",
    ]);
  });
});
