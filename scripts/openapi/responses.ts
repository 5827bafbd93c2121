/**
 * Headers, shared responses and examples of the OpenAPI document. Every header
 * the service always sends is `required: true`, and every header, parameter, body
 * and response has an example that validates against its own schema, so testing
 * tools (dredd, Prism, Schemathesis) and mock servers run on the document as it is.
 */
import { deprecationHeaderValues } from "../../src/schema/deprecation.js";
import { ERROR_CODES, type ErrorCode } from "../../src/schema/error-codes.js";
import { schemaRef } from "./schemas.js";

type Json = Record<string, unknown>;

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const integerHeader = (description: string, example: number, required = true) => ({
  description,
  required,
  schema: { type: "integer", minimum: 0 },
  example,
});
const stringHeader = (description: string, example: string, schema: Json = {}) => ({
  description,
  required: true,
  schema: { type: "string", ...schema },
  example,
});

/** The `components.headers` of the document. */
export function componentHeaders() {
  const deprecation = deprecationHeaderValues();
  return {
    "X-RateLimit-Limit": integerHeader("Requests allowed in the window that binds first.", 300),
    "X-RateLimit-Remaining": integerHeader("Requests left in that window.", 299),
    "X-RateLimit-Reset": integerHeader(
      "Unix time (seconds) at which that window resets.",
      1767225660,
    ),
    "Retry-After": integerHeader("Seconds to wait before retrying.", 30),
    "WWW-Authenticate": stringHeader("The bearer challenge (RFC 6750).", 'Bearer realm="petstore"'),
    Location: stringHeader("The path of the animal just added.", "/v1/pets/41", {
      format: "uri-reference",
    }),
    Deprecation: stringHeader(
      "When the operation was deprecated, as `@` and Unix seconds (RFC 9745).",
      deprecation.Deprecation,
      { pattern: "^@-?[0-9]+$" },
    ),
    Sunset: stringHeader(
      "When the operation is removed, as an HTTP date (RFC 8594).",
      deprecation.Sunset,
    ),
    Link: stringHeader("The operation that replaces this one.", deprecation.Link),
  };
}

/** References to the components.headers of these names. */
export const headerRefs = (...names: string[]) =>
  Object.fromEntries(names.map((name) => [name, headerRef(name)]));

export const RATE_LIMIT_HEADERS = headerRefs(
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
);

/** Every response of the deprecated `getPet`, errors included, carries these. */
export const DEPRECATION_HEADERS = headerRefs("Deprecation", "Sunset", "Link");

export const PET_EXAMPLES = [
  { id: 1, name: "Biscuit", categoryId: 1, status: "available" },
  { id: 2, name: "Mango", categoryId: 2, status: "pending" },
  { id: 3, name: "Pepper", categoryId: 1, status: "sold" },
];
export const NEW_PET_EXAMPLE = { name: "Rex", categoryId: 1, status: "available" };
export const CREATED_PET_EXAMPLE = { id: 41, name: "Rex", categoryId: 1, status: "available" };

/** One example message per error code a response can carry; the status is the table's. */
const ERROR_MESSAGES: Partial<Record<ErrorCode, string>> = {
  invalid_query: 'limit must be an integer from 1 to 100; got "500"',
  invalid_pet_id:
    'petId must be an integer from -9223372036854775808 to 9223372036854775807; got "abc"',
  invalid_body: 'name must be a non-blank string of at most 200 characters; got "   "',
  invalid_json: "the body is not valid JSON: Unexpected '}', expected a value at line 1, column 27",
  empty_body: "the body is empty; send a NewPet as JSON",
  unauthorized: "an API key is required: send Authorization: Bearer <key>",
  invalid_key: "the API key is not valid",
  pet_not_found: "no pet has the id 404",
  gone: "GET /v1/pets/{petId} was removed on 2030-12-05T00:00:00.000Z; use GET /v1/pets instead (filter it with status)",
  payload_too_large: "the body is larger than 1048576 bytes (1 MiB)",
  unsupported_media_type: "Content-Type must be application/json (charset utf-8 if given)",
  rate_limited: "rate limit of 300 requests exceeded; retry after 30 s",
  banned:
    "too many requests while rate limited: banned for 600 s; wait for Retry-After before retrying",
  internal_error: "the service failed unexpectedly",
  fault_injected: "injected fault (--fail-rate): the service is unavailable; retry later",
  id_space_exhausted:
    "No id is left for a new pet: the largest stored id is 9223372036854775807, the int64 maximum.",
};

/** An `examples` map of Example Objects, one per error code. */
function errorExamples(codes: readonly ErrorCode[]): Json {
  const examples: Json = {};
  for (const code of codes) {
    const value = { code, message: ERROR_MESSAGES[code]!, status: ERROR_CODES[code].status };
    examples[code] = { summary: code, value };
  }
  return examples;
}

export function errorResponse(
  description: string,
  codes: readonly ErrorCode[],
  headers: Json = RATE_LIMIT_HEADERS,
): Json {
  return {
    description,
    headers,
    content: { "application/json": { schema: schemaRef("Error"), examples: errorExamples(codes) } },
  };
}

/** The responses every operation shares, under `components.responses`. */
export function sharedResponses(): Record<string, Json> {
  return {
    Unauthorized: errorResponse("API key missing or invalid.", ["unauthorized", "invalid_key"], {
      ...RATE_LIMIT_HEADERS,
      ...headerRefs("WWW-Authenticate"),
    }),
    TooManyRequests: errorResponse(
      "Rate limit exceeded, or the key is temporarily banned.",
      ["rate_limited", "banned"],
      { ...RATE_LIMIT_HEADERS, ...headerRefs("Retry-After") },
    ),
    InternalError: errorResponse("The service failed unexpectedly; retry later.", [
      "internal_error",
    ]),
    ServiceUnavailable: errorResponse(
      "The service is unavailable for a moment; retry after Retry-After when it is sent.",
      ["fault_injected"],
      {
        ...RATE_LIMIT_HEADERS,
        "Retry-After": { ...componentHeaders()["Retry-After"], required: false },
      },
    ),
  };
}

const SHARED_ERRORS = {
  "401": "Unauthorized",
  "429": "TooManyRequests",
  "500": "InternalError",
  "503": "ServiceUnavailable",
} as const;

/** The shared error responses, by reference, or copied with extra headers (for getPet). */
export function sharedErrors(extraHeaders?: Json): Json {
  const shared = extraHeaders === undefined ? undefined : sharedResponses();
  const result: Json = {};
  for (const [status, name] of Object.entries(SHARED_ERRORS)) {
    if (shared === undefined) {
      result[status] = { $ref: `#/components/responses/${name}` };
    } else {
      const response = shared[name]!;
      result[status] = {
        ...response,
        headers: { ...(response.headers as Json), ...extraHeaders },
      };
    }
  }
  return result;
}
