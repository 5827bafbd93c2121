/**
 * The OpenAPI 3.1 document of the service, generated from the zod schemas so the
 * contract cannot drift from the code. `npm run openapi` writes it to
 * `openapi.json`; a test checks the committed file is current, and the fake
 * serves it at `GET /v1/openapi.json`.
 */
import * as z from "zod/mini";
import {
  ErrorBody,
  HttpStatusCode,
  Int64,
  LIMIT_DEFAULT,
  LIMIT_MAX,
  LIMIT_MIN,
  NewPet,
  Pet,
  PetStatus,
} from "./pet.js";

import { SUNSET_DATE } from "./deprecation.js";

export const API_VERSION = "1.0.0";

type JsonSchema = Record<string, unknown>;

function toSchema(schema: z.core.$ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    unrepresentable: "any",
    override: (ctx) => {
      if (ctx.zodSchema === Int64) {
        for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
        Object.assign(ctx.jsonSchema, { type: "integer", format: "int64" });
      } else if (ctx.zodSchema === HttpStatusCode) {
        for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
        Object.assign(ctx.jsonSchema, { type: "integer", minimum: 100, maximum: 599 });
      }
    },
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const rateLimitHeaders = {
  "X-RateLimit-Limit": { $ref: "#/components/headers/X-RateLimit-Limit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/X-RateLimit-Remaining" },
  "X-RateLimit-Reset": { $ref: "#/components/headers/X-RateLimit-Reset" },
};
const errorResponse = (description: string) => ({
  description,
  headers: rateLimitHeaders,
  content: { "application/json": { schema: ref("Error") } },
});
const commonErrors = {
  "401": { $ref: "#/components/responses/Unauthorized" },
  "429": { $ref: "#/components/responses/TooManyRequests" },
};

export function buildOpenApiDocument(): JsonSchema {
  const pet = toSchema(Pet);
  const newPet = toSchema(NewPet);
  return {
    openapi: "3.1.0",
    info: {
      title: "Pet Store",
      version: API_VERSION,
      description: "An HTTP/JSON service for browsing and managing animals available for adoption.",
    },
    servers: [
      {
        url: "{base_url}",
        description: "production",
        variables: { base_url: { default: "https://api.petstore.example/v1" } },
      },
      {
        url: "{staging_base_url}",
        description: "staging",
        variables: { staging_base_url: { default: "https://staging.api.petstore.example/v1" } },
      },
    ],
    security: [{ bearerAuth: [] }],
    paths: {
      "/pets": {
        get: {
          operationId: "listPets",
          summary: "List animals, by id ascending.",
          parameters: [
            {
              name: "limit",
              in: "query",
              required: false,
              schema: {
                type: "integer",
                minimum: LIMIT_MIN,
                maximum: LIMIT_MAX,
                default: LIMIT_DEFAULT,
              },
            },
            { name: "status", in: "query", required: false, schema: ref("PetStatus") },
          ],
          responses: {
            "200": {
              description: "A page of animals.",
              headers: rateLimitHeaders,
              content: { "application/json": { schema: { type: "array", items: ref("Pet") } } },
            },
            "400": errorResponse("Invalid query parameter."),
            ...commonErrors,
          },
        },
        post: {
          operationId: "createPet",
          summary: "Add an animal.",
          requestBody: {
            required: true,
            content: { "application/json": { schema: ref("NewPet") } },
          },
          responses: {
            "201": {
              description: "Animal added; the body includes the assigned id.",
              headers: rateLimitHeaders,
              content: { "application/json": { schema: ref("Pet") } },
            },
            "400": errorResponse("Body is missing required fields or contains invalid values."),
            "413": errorResponse("Body larger than 1 MiB."),
            "415": errorResponse("Body is not application/json."),
            ...commonErrors,
          },
        },
      },
      "/pets/{petId}": {
        get: {
          operationId: "getPet",
          summary: "Fetch one animal by id.",
          deprecated: true,
          description: `Deprecated; removed on ${SUNSET_DATE}. Use GET /pets with the status filter.`,
          parameters: [
            {
              name: "petId",
              in: "path",
              required: true,
              schema: { type: "integer", format: "int64" },
            },
          ],
          responses: {
            "200": {
              description: "The requested animal.",
              headers: rateLimitHeaders,
              content: { "application/json": { schema: ref("Pet") } },
            },
            "400": errorResponse("petId is not an int64."),
            "404": errorResponse("The animal cannot be found."),
            ...commonErrors,
          },
        },
      },
    },
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } },
      schemas: {
        PetStatus: toSchema(PetStatus),
        NewPet: newPet,
        Pet: pet,
        Error: toSchema(ErrorBody),
      },
      headers: {
        "X-RateLimit-Limit": {
          description: "Requests allowed in the window that binds first.",
          schema: { type: "integer" },
        },
        "X-RateLimit-Remaining": {
          description: "Requests left in that window.",
          schema: { type: "integer" },
        },
        "X-RateLimit-Reset": {
          description: "Unix time (seconds) at which that window resets.",
          schema: { type: "integer" },
        },
      },
      responses: {
        Unauthorized: {
          description: "API key missing or invalid.",
          headers: {
            ...rateLimitHeaders,
            "WWW-Authenticate": { schema: { type: "string" } },
          },
          content: { "application/json": { schema: ref("Error") } },
        },
        TooManyRequests: {
          description: "Rate limit exceeded, or the key is temporarily banned.",
          headers: { ...rateLimitHeaders, "Retry-After": { schema: { type: "integer" } } },
          content: { "application/json": { schema: ref("Error") } },
        },
      },
    },
  };
}

export function openApiText(): string {
  return JSON.stringify(buildOpenApiDocument(), null, 2) + "\n";
}
