/**
 * The OpenAPI 3.1 document of the service, generated from the zod schemas so the
 * contract cannot drift from the code. `npm run openapi` writes it to `openapi.json`
 * (servers: production and staging), and test/schema/openapi.test.ts fails while that
 * file is not what this makes. The fake serves that file (src/schema/openapi.ts), with
 * its own URL as the first server: nothing here runs in petstore itself.
 */
import { DEFAULT_BASE_URLS } from "../../src/profiles/environments.js";
import { LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN } from "../../src/schema/pet.js";
import {
  CREATED_PET_EXAMPLE,
  DEPRECATION_HEADERS,
  NEW_PET_EXAMPLE,
  PET_EXAMPLES,
  RATE_LIMIT_HEADERS,
  componentHeaders,
  errorResponse,
  headerRefs,
  sharedErrors,
  sharedResponses,
} from "./responses.js";
import { componentSchemas, schemaRef, type JsonSchema } from "./schemas.js";

import { SUNSET_DATE } from "../../src/schema/deprecation.js";

const API_VERSION = "1.0.0";

const SERVERS = [
  {
    url: "{base_url}",
    description: "production",
    variables: { base_url: { default: DEFAULT_BASE_URLS.production } },
  },
  {
    url: "{staging_base_url}",
    description: "staging",
    variables: { staging_base_url: { default: DEFAULT_BASE_URLS.staging } },
  },
];

const json = (schema: unknown, examples: Record<string, unknown>) => ({
  "application/json": { schema, examples },
});
const example = (summary: string, value: unknown) => ({ summary, value });

function listPets(): JsonSchema {
  return {
    operationId: "listPets",
    summary: "List animals, by id ascending.",
    parameters: [
      {
        name: "limit",
        in: "query",
        required: false,
        description: "Page size.",
        schema: { type: "integer", minimum: LIMIT_MIN, maximum: LIMIT_MAX, default: LIMIT_DEFAULT },
        example: LIMIT_DEFAULT,
      },
      {
        name: "status",
        in: "query",
        required: false,
        description: "Only animals with this status.",
        schema: schemaRef("PetStatus"),
        example: "available",
      },
    ],
    responses: {
      "200": {
        description: "A page of animals.",
        headers: RATE_LIMIT_HEADERS,
        content: json(
          { type: "array", maxItems: LIMIT_MAX, items: schemaRef("Pet") },
          { page: example("A page of animals", PET_EXAMPLES) },
        ),
      },
      "400": errorResponse("Invalid query parameter.", ["invalid_query"]),
      ...sharedErrors(),
    },
  };
}

function createPet(): JsonSchema {
  return {
    operationId: "createPet",
    summary: "Add an animal.",
    requestBody: {
      required: true,
      content: json(schemaRef("NewPet"), { pet: example("An animal to add", NEW_PET_EXAMPLE) }),
    },
    responses: {
      "201": {
        description: "Animal added; the body includes the assigned id.",
        headers: { ...RATE_LIMIT_HEADERS, ...headerRefs("Location") },
        content: json(schemaRef("Pet"), { pet: example("The animal added", CREATED_PET_EXAMPLE) }),
      },
      "400": errorResponse(
        "Body is missing required fields, holds invalid values or is not JSON.",
        ["invalid_body", "invalid_json", "empty_body"],
      ),
      "413": errorResponse("Body larger than 1 MiB.", ["payload_too_large"]),
      "415": errorResponse("Body is not application/json.", ["unsupported_media_type"]),
      "507": errorResponse("No id is left for a new animal.", ["id_space_exhausted"]),
      ...sharedErrors(),
    },
  };
}

function getPet(): JsonSchema {
  const headers = { ...RATE_LIMIT_HEADERS, ...DEPRECATION_HEADERS };
  return {
    operationId: "getPet",
    summary: "Fetch one animal by id.",
    deprecated: true,
    description: `Deprecated; removed on ${SUNSET_DATE}. Use GET /pets with the status filter. Every response carries Deprecation, Sunset and Link.`,
    parameters: [
      {
        name: "petId",
        in: "path",
        required: true,
        description: "Identifier of the animal.",
        schema: { type: "integer", format: "int64" },
        example: PET_EXAMPLES[0]!.id,
      },
    ],
    responses: {
      "200": {
        description: "The requested animal.",
        headers,
        content: json(schemaRef("Pet"), { pet: example("An animal", PET_EXAMPLES[0]) }),
      },
      "400": errorResponse("petId is not an int64.", ["invalid_pet_id"], headers),
      "404": errorResponse("The animal cannot be found.", ["pet_not_found"], headers),
      "410": errorResponse("Removed: at or after the sunset.", ["gone"], headers),
      ...sharedErrors(DEPRECATION_HEADERS),
    },
  };
}

export function buildOpenApiDocument(): JsonSchema {
  return {
    openapi: "3.1.0",
    info: {
      title: "Pet Store",
      version: API_VERSION,
      description: "An HTTP/JSON service for browsing and managing animals available for adoption.",
    },
    servers: SERVERS,
    security: [{ bearerAuth: [] }],
    paths: {
      "/pets": { get: listPets(), post: createPet() },
      "/pets/{petId}": { get: getPet() },
    },
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } },
      schemas: componentSchemas(),
      headers: componentHeaders(),
      responses: sharedResponses(),
    },
  };
}

/** The text of openapi.json. */
export function openApiText(): string {
  return JSON.stringify(buildOpenApiDocument(), null, 2) + "\n";
}
