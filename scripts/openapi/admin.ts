/**
 * The OpenAPI 3.1 document of the control plane (`/__admin/*`), made as the
 * service's is (document.ts): `npm run openapi` writes it to `admin-openapi.json`,
 * which the fake serves as it is with its own origin as the server
 * (src/server/admin/routes.ts), and test/server/admin/admin-openapi.test.ts fails
 * while that file is not what this makes, and checks every live answer against it.
 * Its paths are the route table's, each operation with the body schema the route
 * checks; what only the document says is here: each operation's id and
 * summary, the schemas of its answers (plain objects, so a client does not break
 * on a field added later) and its errors. A schema named with `named` is a
 * component of that name. Nothing here runs in petstore itself.
 */
import { STATUS_CODES } from "node:http";
import * as z from "zod/mini";
import { LATEST_CLOCK_MS, isoTime } from "../../src/server/admin/clock.js";
import { Answer, Match, MAX_RULES, NextRuleBody } from "../../src/server/admin/next.js";
import {
  BODY_BUDGET,
  JOURNAL_FILTER,
  MAX_BODY_KEPT,
  PAGE_BYTES,
} from "../../src/server/admin/request-journal.js";
import { ADMIN_ROUTES, ClockBody } from "../../src/server/admin/routes.js";
import { MAX_JOURNAL_SIZE } from "../../src/server/serve-defaults.js";
import { FaultSettings, LatencyRange } from "../../src/server/faults.js";
import { KeyFields, PLAN } from "../../src/server/keys.js";
import { GRACE_MS, MAX_ITEMS, RULES } from "../../src/server/verdict.js";

/** The schemas the document names in its components. */
const ADMIN_SCHEMAS = z.registry<{ id: string }>();

function named<S extends z.ZodMiniType>(id: string, schema: S): S {
  ADMIN_SCHEMAS.add(schema, { id });
  return schema;
}

const described = <S extends z.ZodMiniType>(schema: S, description: string): S =>
  schema.check(z.describe(description)) as S;

const count = () => z.int().check(z.gte(0));

/** What the document says of an operation ("METHOD /path") besides its body. */
interface Documented {
  operationId: string;
  summary: string;
  parameters?: readonly Record<string, unknown>[];
  /** The schema of each answer that is not an error (null: no body). */
  answers: Record<number, z.ZodMiniType | null>;
  /** The errors it answers besides those every route answers, and every route with a body. */
  errors?: Record<number, string>;
}

/** The bodies the routes take, by their names in the document. */
named("NextRule", NextRuleBody);
named("AdvanceClock", ClockBody);
named("FaultsUpdate", FaultSettings);
named("NewKey", KeyFields);

/** Gives each field of `object` the words here, which only the document says. */
function describeFields(
  object: { shape: Record<string, z.ZodMiniType> },
  words: Record<string, string>,
) {
  for (const [field, description] of Object.entries(words)) {
    z.globalRegistry.add(object.shape[field]!, { description });
  }
}
const WHICH_REQUESTS = {
  method: "GET, POST... (any case); any when left out",
  path: "Exact (/v1/pets), or a prefix ending in * (/v1/pets*)",
};
describeFields(Match, { ...WHICH_REQUESTS, key: "The key itself; any key when left out." });
describeFields(Answer, {
  status: "A valid Error body, with the headers the real answer carries.",
  retryAfterSeconds: "The Retry-After of a 429 or 503; 1 when left out.",
  drop: "The connection is reset before the request is processed, or after (a POST creates the pet).",
  delayMs: "The real answer, this many milliseconds late.",
});
describeFields(NextRuleBody, { times: "How many matching requests get it; 1 when left out." });
describeFields(LatencyRange, {
  min: "The shortest delay, in milliseconds.",
  max: "The longest delay, in milliseconds; at least min.",
});
describeFields(FaultSettings.def.in, {
  latencyMs: "Delay before each pet operation, uniform in [min, max]; null: none.",
  failRate: "The share of pet operations that fail, 0 to 1.",
  failMode:
    "How a failing operation fails: 503 (with Retry-After), reset (the connection " +
    "closed before it is processed), reset-after (processed, then closed unanswered).",
  seed: "Makes the sequence of faults repeatable; null: a random one.",
});
describeFields(KeyFields.def.in, {
  perMinute: "enterprise only, with perDay",
  perDay: "enterprise only, with perMinute",
});
z.globalRegistry.add(FaultSettings, {
  description: "Replaces every setting; an omitted one takes its default (none, 0, 503, random).",
});

const ErrorAnswer = named(
  "Error",
  z.object({
    code: z.string(),
    message: z.string(),
    status: z.int().check(z.gte(400), z.lte(599)),
  }),
);

const ClockAnswer = named(
  "Clock",
  z.object({ now: z.iso.datetime(), nowMs: count(), offsetSeconds: z.number().check(z.gte(0)) }),
);

/** The settings as `GET /__admin/faults` answers them: every one, defaults filled in. */
const Faults = named(
  "Faults",
  z.required(z.object({ ...FaultSettings.def.in.shape, latencyMs: LatencyRange })),
);

/** A key as `GET /__admin/keys` shows it: redacted, with where its binding window stands. */
const KeyEntryAnswer = named(
  "KeyEntry",
  z.object({
    key: described(z.string(), "Redacted, as `petstore auth status` shows keys."),
    plan: PLAN,
    limit: described(count(), "Of the window that binds first; 2147483647 when unlimited."),
    remaining: count(),
    reset: described(count(), "Unix seconds."),
    perMinute: described(z.nullable(z.int().check(z.gte(1))), "null: unlimited."),
    perDay: z.nullable(z.int().check(z.gte(1))),
  }),
);

const RuleState = named(
  "NextRuleState",
  z.object({
    match: Match,
    answer: Answer,
    times: count(),
    used: described(count(), "How many requests it has answered."),
  }),
);
const NextRules = named("NextRules", z.object({ rules: z.array(RuleState) }));

const VerdictItem = named(
  "VerdictItem",
  z.object({
    rule: z.enum(Object.keys(RULES) as [keyof typeof RULES]),
    key: described(
      z.nullable(z.string()),
      "Redacted, as `petstore auth status` shows keys; null: no valid key.",
    ),
    request: described(
      z.object({
        method: z.string(),
        path: z.string(),
        time: z.iso.datetime(),
        id: z.nullable(count()),
      }),
      "The request (the latest, for a counted warning); id: its journal id (null with the journal off).",
    ),
    message: z.string(),
    count: z.optional(
      described(count(), "deprecated-endpoint and unauthenticated: how many requests."),
    ),
  }),
);

const VerdictAnswer = named(
  "Verdict",
  z.object({
    pass: described(z.boolean(), "No violation (warnings do not fail it)."),
    violations: z.array(VerdictItem),
    warnings: z.array(VerdictItem),
    omitted: described(count(), `Items past the ${MAX_ITEMS} kept of each list.`),
  }),
);

const POST_ONLY = "POST only: ";

/** A journal entry as JSON (`GET /__admin/requests`, `requests()`). */
const RecordedRequestAnswer = named(
  "RecordedRequest",
  z.object({
    id: described(z.int().check(z.gte(1)), "Increases by one per request; never reused."),
    time: described(z.iso.datetime(), "The fake's clock."),
    method: z.string(),
    path: z.string(),
    query: described(z.string(), "Without `?`; empty when none."),
    status: described(z.nullable(z.int()), "null: the connection was reset."),
    durationMs: z.number().check(z.gte(0)),
    plan: described(z.nullable(PLAN), "The key's plan; never the key."),
    body: z.optional(
      described(
        z.string(),
        `${POST_ONLY}the start of the body as received, decoded as UTF-8 (invalid bytes become ` +
          `U+FFFD): its first ${MAX_BODY_KEPT / 1024} KiB, or ${BODY_BUDGET / 1024 / 1024} MiB / ` +
          "journalSize bytes when the journal keeps more than 1,024 requests (cut before a " +
          "character, never inside one).",
      ),
    ),
    bodyBytes: z.optional(described(count(), `${POST_ONLY}the body's whole size in bytes.`)),
    bodyTruncated: z.optional(
      described(z.boolean(), `${POST_ONLY}true when \`body\` is only the start of it.`),
    ),
  }),
);

/** One answer of `GET /__admin/requests`. */
const RequestsAnswer = named(
  "Requests",
  z.object({
    requests: described(
      z.array(RecordedRequestAnswer),
      `Oldest first; about ${PAGE_BYTES / 1024 / 1024} MiB of JSON at most (always at least one request).`,
    ),
    journalSize: described(count(), "How many are kept (--journal-size)."),
    lastId: described(count(), "The id of the newest request recorded; 0 before any."),
    nextAfter: described(
      z.nullable(count()),
      "More requests match than this answer holds: ask again with after=nextAfter. " +
        "null: this answer holds the last of them.",
    ),
  }),
);

const JSON_SCHEMA = { target: "draft-2020-12", io: "input" } as const;

const FILTER_WORDS: Record<string, string> = {
  ...WHICH_REQUESTS,
  status: "A status (404) or a class (4xx)",
  since: "An ISO 8601 time or Unix milliseconds (the fake's clock): at or after it",
  after: "Only requests with a larger id: the nextAfter of the previous page",
  limit: `At most this many (0 to ${MAX_JOURNAL_SIZE})`,
};
/** The journal's filters, each in its words, as the document's query parameters. */
const FILTER_PARAMETERS = Object.keys(
  (z.toJSONSchema(JOURNAL_FILTER, JSON_SCHEMA) as { properties: object }).properties,
).map((name) => ({
  name,
  in: "query",
  description: FILTER_WORDS[name]!,
  schema: { type: "string" },
}));

const LATEST_CLOCK = isoTime(LATEST_CLOCK_MS);

const OPERATIONS: Record<string, Documented> = {
  "GET /__admin/health": {
    operationId: "health",
    summary: "Readiness: the number of pets and the uptime.",
    answers: {
      200: z.object({ status: z.literal("ok"), pets: count(), uptimeSeconds: count() }),
    },
  },
  "POST /__admin/reset": {
    operationId: "reset",
    summary:
      "The store back to what it held at start-up (durably); rate limits, bans, the journal " +
      "the scripted answers and the verdict cleared.",
    answers: { 200: z.object({ status: z.literal("reset"), pets: count() }) },
    errors: {
      500: "internal_error: the store could not be reset; unchanged",
      507: "insufficient_storage: the disk refused the write; unchanged",
    },
  },
  "GET /__admin/requests": {
    operationId: "listRequests",
    summary:
      "The request journal, oldest first, a page at a time: each answer holds about " +
      `${PAGE_BYTES / 1024 / 1024} MiB of JSON at most; nextAfter says where the next one starts.`,
    parameters: FILTER_PARAMETERS,
    answers: { 200: RequestsAnswer },
    errors: { 400: "invalid_admin_request" },
  },
  "DELETE /__admin/requests": {
    operationId: "clearRequests",
    summary: "Empties the journal (ids continue).",
    answers: { 204: null },
  },
  "GET /__admin/next": {
    operationId: "listNext",
    summary: "The scripted answers, in the order they were added, with how often each was used.",
    answers: { 200: NextRules },
  },
  "POST /__admin/next": {
    operationId: "addNext",
    summary:
      "Adds a scripted answer: the next `times` requests that match (after authentication, " +
      "the rate limit, 404 and 405) get it instead of the faults. A scripted 429 counts " +
      `toward a ban as a real one does. ${MAX_RULES} rules at most (a spent one makes room).`,
    answers: { 201: RuleState },
    errors: {
      400: `invalid_admin_request (names the field); also ${MAX_RULES} rules with uses left`,
    },
  },
  "DELETE /__admin/next": {
    operationId: "clearNext",
    summary: "Removes every scripted answer.",
    answers: { 204: null },
  },
  "GET /__admin/verdict": {
    operationId: "verdict",
    summary:
      "The verdict on the app under test since the start or the last reset: the contract's " +
      "rules it broke (violations: early-retry, with a grace of " +
      `${GRACE_MS} ms; request-while-banned; no-backoff; duplicate-after-unknown-outcome; ` +
      "removed-endpoint) and warnings (deprecated-endpoint, repeated-create, unauthenticated). " +
      `${MAX_ITEMS} items of each list are kept at most.`,
    answers: { 200: VerdictAnswer },
  },
  "GET /__admin/clock": {
    operationId: "getClock",
    summary: "The fake's time.",
    answers: { 200: ClockAnswer },
  },
  "POST /__admin/clock": {
    operationId: "advanceClock",
    summary:
      "Moves the fake's clock forward: rate-limit windows, bans, Date and X-RateLimit-Reset " +
      `follow. Up to ${LATEST_CLOCK} in all, so that every date the fake sends keeps a ` +
      "four-digit year.",
    answers: { 200: ClockAnswer },
    errors: {
      400:
        "invalid_admin_request (names the field), invalid_json or empty_body; also a step " +
        `that would take the clock past ${LATEST_CLOCK} (the message says how many seconds are left)`,
    },
  },
  "GET /__admin/faults": {
    operationId: "getFaults",
    summary: "Latency, fail rate and fail mode.",
    answers: { 200: Faults },
  },
  "PUT /__admin/faults": {
    operationId: "setFaults",
    summary: "Replaces the fault settings (as --latency, --fail-rate, --fail-mode, --fault-seed).",
    answers: { 200: Faults },
  },
  "GET /__admin/keys": {
    operationId: "listKeys",
    summary: "The keys (redacted) with their plans and remaining quota.",
    answers: { 200: named("Keys", z.object({ keys: z.array(KeyEntryAnswer) })) },
  },
  "POST /__admin/keys": {
    operationId: "addKey",
    summary: "Adds a key, or gives a known key this plan (its counters kept).",
    answers: { 201: KeyEntryAnswer, 200: KeyEntryAnswer },
  },
  "DELETE /__admin/keys/{key}": {
    operationId: "removeKey",
    summary: "Removes a key.",
    parameters: [
      {
        name: "key",
        in: "path",
        required: true,
        description: "The key itself, percent-encoded",
        schema: { type: "string" },
      },
    ],
    answers: { 204: null },
    errors: { 404: "admin_key_not_found, or not_found when the control plane is off" },
  },
  "GET /__admin/openapi.json": {
    operationId: "adminOpenApi",
    summary: "This document.",
    answers: { 200: z.looseObject({ openapi: z.literal("3.1.0") }) },
  },
};

const EVERY_ROUTE_ERRORS = {
  401: "admin_unauthorized: the fake has an --admin-token and it was not sent",
  403: "admin_forbidden: a page of another origin, or a Host that is not loopback",
  404: "not_found: the control plane is off (not on loopback, no --admin-token)",
  405: "method_not_allowed",
};
const BODY_ERRORS = {
  400: "invalid_admin_request (names the field), invalid_json or empty_body",
  413: "payload_too_large: over 1 MiB",
  415: "unsupported_media_type: not application/json",
};

/** A JSON body of `schema`: a reference to its component when it is named, else inline. */
function content(schema: z.ZodMiniType) {
  const id = ADMIN_SCHEMAS.get(schema)?.id;
  const { $schema: _, ...inline } = z.toJSONSchema(schema, JSON_SCHEMA);
  return {
    "application/json": {
      schema: id === undefined ? inline : { $ref: `#/components/schemas/${id}` },
    },
  };
}

function operationObject(operation: string, body: z.ZodMiniType | undefined) {
  const { operationId, summary, parameters, answers, ...documented } = OPERATIONS[operation]!;
  const responses: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(answers)) {
    const description = STATUS_CODES[status];
    responses[status] =
      schema === null ? { description } : { description, content: content(schema) };
  }
  const errors = { ...EVERY_ROUTE_ERRORS, ...(body && BODY_ERRORS), ...documented.errors };
  for (const [status, description] of Object.entries(errors)) {
    responses[status] = { description, content: content(ErrorAnswer) };
  }
  const requestBody = body && {
    required: !body.safeParse(undefined).success,
    content: content(body),
  };
  return { operationId, summary, parameters, requestBody, responses };
}

/** The document, its `servers` left for the fake's own origin. */
export function adminOpenApi() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, methods] of Object.entries(ADMIN_ROUTES)) {
    for (const [method, { body }] of Object.entries(methods)) {
      const operation = operationObject(`${method} ${path}`, body);
      paths[path] = { ...paths[path], [method.toLowerCase()]: operation };
    }
  }
  const { schemas } = z.toJSONSchema(ADMIN_SCHEMAS, {
    ...JSON_SCHEMA,
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Record<string, unknown>> };
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return {
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
    servers: [],
    security: [{}, { adminToken: [] }],
    paths,
    components: { schemas, securitySchemes: { adminToken: { type: "http", scheme: "bearer" } } },
  };
}

/** The text of admin-openapi.json. */
export function openApiText(): string {
  return JSON.stringify(adminOpenApi(), null, 2) + "\n";
}
