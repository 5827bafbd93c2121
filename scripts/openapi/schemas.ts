/**
 * The component schemas of the OpenAPI document, generated from the zod schemas
 * (src/schema/pet.ts) so the contract cannot drift from the code. One registry, so every
 * use of PetStatus is a `$ref` to one schema and generators make one type.
 *
 * Response schemas (Pet, Error) leave `additionalProperties` open: a strict client
 * must not break when the service adds a field. The request schema (NewPet)
 * keeps it closed, because the service refuses unknown fields.
 */
import * as z from "zod/mini";
import {
  ErrorBody,
  HttpStatusCode,
  Int64,
  JsonInt64,
  NewPet,
  Pet,
  PetStatus,
} from "../../src/schema/pet.js";

export type JsonSchema = Record<string, unknown>;

export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const RESPONSE_SCHEMAS = ["Pet", "Error"];

const DESCRIPTIONS: Record<string, { self: string; properties: Record<string, string> }> = {
  PetStatus: { self: "Adoption status of an animal.", properties: {} },
  NewPet: {
    self: "An animal to add; the service assigns its id.",
    properties: {
      name: "The animal's name: 1 to 200 characters (Unicode code points), not only white space.",
      categoryId:
        "Identifier of the category the animal belongs to. Beyond 2^53 - 1 in size, send plain digits: a fraction or exponent cannot be read exactly there.",
      status: "Stored as `available` when omitted.",
    },
  },
  Pet: {
    self: "An animal available for adoption (or no longer).",
    properties: {
      id: "Unique identifier assigned by the service on creation.",
      name: "The animal's name.",
      categoryId: "Identifier of the category the animal belongs to.",
    },
  },
  Error: {
    self: "The body of every error response.",
    properties: {
      code: "A stable, machine-readable error code.",
      message: "What went wrong, for a person.",
      status: "The HTTP status code of the response.",
    },
  },
};

function replace(target: JsonSchema, content: JsonSchema): void {
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, content);
}

/** PetStatus, NewPet, Pet and Error, as OpenAPI 3.1 (JSON Schema 2020-12) schemas. */
export function componentSchemas(): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  registry.add(PetStatus, { id: "PetStatus" });
  registry.add(NewPet, { id: "NewPet" });
  registry.add(Pet, { id: "Pet" });
  registry.add(ErrorBody, { id: "Error" });
  const { schemas } = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    unrepresentable: "any",
    uri: (id) => `#/components/schemas/${id}`,
    override: (ctx) => {
      const json = ctx.jsonSchema as JsonSchema;
      if (ctx.zodSchema === Int64 || ctx.zodSchema === JsonInt64) {
        replace(json, { type: "integer", format: "int64" });
      } else if (ctx.zodSchema === HttpStatusCode) {
        replace(json, { type: "integer", minimum: 100, maximum: 599 });
      }
    },
  }) as { schemas: Record<string, JsonSchema> };
  const result: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    delete schema.$schema;
    delete schema.$id;
    if (RESPONSE_SCHEMAS.includes(name)) delete schema.additionalProperties;
    // Every schema of the registry is described.
    const described = DESCRIPTIONS[name]!;
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    for (const [property, description] of Object.entries(described.properties)) {
      properties[property] = { ...properties[property], description };
    }
    result[name] = { description: described.self, ...schema };
  }
  return result;
}
