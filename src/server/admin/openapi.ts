/**
 * The control plane's own OpenAPI 3.1 document, at `GET /__admin/openapi.json`.
 * It is kept out of the service's document (`/v1/openapi.json`): the control
 * plane belongs to the fake, not to the API it fakes. The schemas of the
 * settings (faults) and of the bodies are generated from the zod schemas that
 * check them (settingSchemas); the routes and answers are written here, and a
 * test checks they list every route served and that live answers match.
 */
import * as z from "zod/mini";
import { PLAN_NAMES } from "../keys.js";
import { FaultsAnswer, FaultSettings } from "../faults.js";
import { ClockBody, KeyBody } from "./bodies.js";
import { LATEST_CLOCK_MS } from "./clock.js";
import { MAX_JOURNAL_SIZE, PAGE_BYTES } from "./request-journal.js";

type Json = Record<string, unknown>;

const LATEST_CLOCK_ISO = new Date(LATEST_CLOCK_MS).toISOString();

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const integer = (minimum: number, maximum?: number) =>
  maximum === undefined ? { type: "integer", minimum } : { type: "integer", minimum, maximum };
const object = (properties: Json, required: string[] = Object.keys(properties)): Json => ({
  type: "object",
  properties,
  required,
});
const closed = (properties: Json, required: string[] = []): Json => ({
  ...object(properties, required),
  additionalProperties: false,
});

/** The schemas made from the zod schemas that check the settings and bodies. */
const GENERATED: Array<[id: string, schema: z.ZodMiniType, description?: string]> = [
  ["Faults", FaultsAnswer],
  [
    "FaultsUpdate",
    FaultSettings,
    "Replaces every setting; an omitted one takes its default (none, 0, 503, random).",
  ],
  ["AdvanceClock", ClockBody],
  ["NewKey", KeyBody],
];
/** Answers leave additionalProperties open: a client must not break on a new field. */
const ANSWERS = ["Faults"];

let generated: Record<string, Json> | undefined;

/** The generated schemas, made at the first read of the document and kept: they never change. */
function settingSchemas(): Record<string, Json> {
  return (generated ??= generateSchemas());
}

function generateSchemas(): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of GENERATED) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    io: "input",
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Json> };
  for (const [id, , description] of GENERATED) {
    const schema = schemas[id]!;
    delete schema.$schema;
    delete schema.$id;
    if (ANSWERS.includes(id)) delete schema.additionalProperties;
    if (description !== undefined) schema.description = description;
  }
  return schemas;
}

const SCHEMAS: Record<string, Json> = {
  Error: object({
    code: { type: "string", examples: ["invalid_admin_request"] },
    message: { type: "string" },
    status: integer(400, 599),
  }),
  Health: object({
    status: { const: "ok" },
    pets: integer(0),
    uptimeSeconds: integer(0),
  }),
  Reset: object({ status: { const: "reset" }, pets: integer(0) }),
  RecordedRequest: object(
    {
      id: { ...integer(1), description: "Increases by one per request; never reused." },
      time: { type: "string", format: "date-time", description: "The fake's clock." },
      method: { type: "string", examples: ["POST"] },
      path: { type: "string", examples: ["/v1/pets"] },
      query: { type: "string", description: "Without `?`; empty when none." },
      status: { type: ["integer", "null"], description: "null: the connection was reset." },
      durationMs: { type: "number", minimum: 0 },
      plan: { enum: [...PLAN_NAMES, null], description: "The key's plan; never the key." },
      body: {
        type: "string",
        description:
          "POST only: the start of the body as received, decoded as UTF-8: its first 64 KiB, " +
          "or 64 MiB / journalSize bytes when the journal keeps more than 1,024 requests " +
          "(cut before a character, never inside one).",
      },
      bodyBytes: { ...integer(0), description: "POST only: the body's whole size in bytes." },
      bodyTruncated: {
        type: "boolean",
        description: "POST only: true when `body` is only the start of it.",
      },
    },
    ["id", "time", "method", "path", "query", "status", "durationMs", "plan"],
  ),
  Requests: object({
    requests: {
      type: "array",
      items: ref("RecordedRequest"),
      description: `Oldest first; about ${PAGE_BYTES / 1024 / 1024} MiB of JSON at most (always at least one request).`,
    },
    journalSize: { ...integer(0), description: "How many are kept (--journal-size)." },
    lastId: { ...integer(0), description: "The id of the newest request recorded; 0 before any." },
    nextAfter: {
      type: ["integer", "null"],
      minimum: 0,
      description:
        "More requests match than this answer holds: ask again with after=nextAfter. " +
        "null: this answer holds the last of them.",
    },
  }),
  Clock: object({
    now: { type: "string", format: "date-time" },
    nowMs: integer(0),
    offsetSeconds: { type: "number", minimum: 0 },
  }),
  KeyEntry: object({
    key: { type: "string", description: "Redacted, as `petstore auth status` shows keys." },
    plan: { enum: PLAN_NAMES },
    limit: integer(0),
    remaining: integer(0),
    reset: { ...integer(0), description: "Unix seconds." },
    perMinute: { type: ["integer", "null"], minimum: 1 },
    perDay: { type: ["integer", "null"], minimum: 1 },
  }),
  Keys: object({ keys: { type: "array", items: ref("KeyEntry") } }),
};

const jsonContent = (schema: Json) => ({ "application/json": { schema } });
const ok = (description: string, schema: string) => ({
  description,
  content: jsonContent(ref(schema)),
});
const error = (description: string) => ({ description, content: jsonContent(ref("Error")) });
const COMMON_ERRORS = {
  "401": error("admin_unauthorized: the fake has an --admin-token and it was not sent"),
  "403": error("admin_forbidden: a page of another origin, or a Host that is not loopback"),
  "404": error("not_found: the control plane is off (not on loopback, no --admin-token)"),
  "405": error("method_not_allowed"),
};
const BODY_ERRORS = {
  "400": error("invalid_admin_request (names the field), invalid_json or empty_body"),
  "413": error("payload_too_large: over 1 MiB"),
  "415": error("unsupported_media_type: not application/json"),
};
const body = (schema: string, required = true) => ({
  required,
  content: jsonContent(ref(schema)),
});

function operation(operationId: string, summary: string, responses: Json, extra: Json = {}): Json {
  return { operationId, summary, ...extra, responses: { ...responses, ...COMMON_ERRORS } };
}

const PATHS: Record<string, Json> = {
  "/__admin/health": {
    get: operation("health", "Readiness: the number of pets and the uptime.", {
      "200": ok("Ready", "Health"),
    }),
  },
  "/__admin/reset": {
    post: operation(
      "reset",
      "The store back to what it held at start-up (durably); rate limits, bans and the journal cleared.",
      {
        "200": ok("Reset", "Reset"),
        ...BODY_ERRORS,
        "500": error("internal_error: the store could not be reset; unchanged"),
        "507": error("insufficient_storage: the disk refused the write; unchanged"),
      },
      { requestBody: { required: false, content: jsonContent(closed({})) } },
    ),
  },
  "/__admin/requests": {
    get: operation(
      "listRequests",
      "The request journal, oldest first, a page at a time: each answer holds about " +
        `${PAGE_BYTES / 1024 / 1024} MiB of JSON at most; nextAfter says where the next one starts.`,
      { "200": ok("The journal", "Requests"), "400": error("invalid_admin_request") },
      {
        parameters: [
          ["method", "GET, POST... (any case)", "POST"],
          ["path", "Exact, or a prefix ending in *", "/v1/pets*"],
          ["status", "A status or a class", "4xx"],
          [
            "since",
            "ISO 8601 time or Unix milliseconds (the fake's clock)",
            "2030-01-01T00:00:00Z",
          ],
          ["after", "Only requests with a larger id: the nextAfter of the previous page", "120"],
          ["limit", `At most this many (0 to ${MAX_JOURNAL_SIZE})`, "50"],
        ].map(([name, description, example]) => ({
          name,
          in: "query",
          required: false,
          description,
          schema: { type: "string" },
          example,
        })),
      },
    ),
    delete: operation("clearRequests", "Empties the journal (ids continue).", {
      "204": { description: "Emptied" },
    }),
  },
  "/__admin/clock": {
    get: operation("getClock", "The fake's time.", { "200": ok("The fake's time", "Clock") }),
    post: operation(
      "advanceClock",
      "Moves the fake's clock forward: rate-limit windows, bans, Date and X-RateLimit-Reset " +
        `follow. Up to ${LATEST_CLOCK_ISO} in all, so that every date the fake sends keeps a ` +
        "four-digit year.",
      {
        "200": ok("The fake's new time", "Clock"),
        ...BODY_ERRORS,
        "400": error(
          "invalid_admin_request (names the field), invalid_json or empty_body; also a step " +
            `that would take the clock past ${LATEST_CLOCK_ISO} (the message says how many seconds are left)`,
        ),
      },
      { requestBody: body("AdvanceClock") },
    ),
  },
  "/__admin/faults": {
    get: operation("getFaults", "Latency, fail rate and fail mode.", {
      "200": ok("The settings", "Faults"),
    }),
    put: operation(
      "setFaults",
      "Replaces the fault settings (as --latency, --fail-rate, --fail-mode, --fault-seed).",
      { "200": ok("The new settings", "Faults"), ...BODY_ERRORS },
      { requestBody: body("FaultsUpdate") },
    ),
  },
  "/__admin/keys": {
    get: operation("listKeys", "The keys (redacted) with their plans and remaining quota.", {
      "200": ok("The keys", "Keys"),
    }),
    post: operation(
      "addKey",
      "Adds a key, or gives a known key this plan (its counters kept).",
      { "201": ok("Added", "KeyEntry"), "200": ok("Changed", "KeyEntry"), ...BODY_ERRORS },
      { requestBody: body("NewKey") },
    ),
  },
  "/__admin/keys/{key}": {
    delete: operation(
      "removeKey",
      "Removes a key.",
      { "204": { description: "Removed" } },
      {
        parameters: [
          {
            name: "key",
            in: "path",
            required: true,
            description: "The key itself, percent-encoded",
            schema: { type: "string" },
          },
        ],
      },
    ),
  },
  "/__admin/openapi.json": {
    get: operation("adminOpenApi", "This document.", {
      "200": { description: "OpenAPI 3.1", content: jsonContent({ type: "object" }) },
    }),
  },
};
// Also answered: admin_key_not_found for an unknown key.
(PATHS["/__admin/keys/{key}"]!.delete as { responses: Json }).responses["404"] = error(
  "admin_key_not_found, or not_found when the control plane is off",
);

/** The document text with `origin` (the fake's own) as its server. */
export function adminOpenApiText(origin: string): string {
  return JSON.stringify({
    openapi: "3.1.0",
    info: {
      title: "petstore serve: control plane",
      version: "1.0.0",
      license: { name: "MIT", identifier: "MIT" },
      description:
        "Drives the local fake from test suites: reset, request journal, clock, faults, keys. " +
        "No credential on a loopback address; otherwise off unless --admin-token is given, " +
        "then Authorization: Bearer <token>.",
    },
    servers: [{ url: origin, description: "this fake (petstore serve)" }],
    security: [{}, { adminToken: [] }],
    paths: PATHS,
    components: {
      schemas: { ...settingSchemas(), ...SCHEMAS },
      securitySchemes: { adminToken: { type: "http", scheme: "bearer" } },
    },
  });
}

/** The routes of the document, as "METHOD /path" (a test compares them with the routes served). */
export const ADMIN_OPERATIONS = Object.entries(PATHS).flatMap(([path, methods]) =>
  Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
);
