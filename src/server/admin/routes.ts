/**
 * `/__admin/*`, the control plane for test suites in any language (as WireMock's
 * `/__admin`), as one table of paths and their methods, shaped as the OpenAPI
 * document's `paths` that is made from it: each route with the body it takes and
 * the answers it gives (zod schemas with their words), what its entry in the
 * document says, and its handler, the one implementation of the operation: the
 * library's RunningServer calls the same handlers (server.ts). The table is
 * served here: who may use it (access.ts), 404, 405 with `Allow`, bodies read as
 * a `POST /v1/pets` body is (1 MiB of application/json) and checked by the
 * route's schema, answers in JSON and errors in the service's Error shape.
 * Control-plane requests use no quota, need no API key and are not recorded in
 * the request journal.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import * as z from "zod/mini";
import { redactKey } from "../../schema/redact-key.js";
import { check, plainJson, strict } from "../check.js";
import { FaultsAnswer, faultsAnswer, FaultSettings } from "../faults.js";
import type { Account, Keyring } from "../auth.js";
import { KeyFields, PLAN } from "../keys.js";
import { FAKE_SERVER_DESCRIPTION, fakeOrigin } from "../openapi-route.js";
import { errorReply, methodNotAllowed, NO_CONTENT, printable, type Reply } from "../reply.js";
import { readJsonBody } from "../request-body.js";
import type { Responder } from "../responder.js";
import { StoreError, type PetStore } from "../store/memory.js";
import { refusal, type AdminAccess } from "./access.js";
import { ADMIN_SCHEMAS, count, described, named } from "./bodies.js";
import { isoTime, LATEST_CLOCK_MS, MAX_ADVANCE_SECONDS, type FakeClock } from "./clock.js";
import { MAX_RULES, NextRuleBody, NextRules, RuleState, type ScriptedAnswers } from "./next.js";
import {
  FILTER_PARAMETERS,
  JOURNAL_FILTER,
  PAGE_BYTES,
  RequestsAnswer,
  type RequestJournal,
} from "./request-journal.js";
import { GRACE_MS, MAX_ITEMS, VerdictAnswer, type VerdictBook } from "../verdict.js";

/** What the control plane reads and changes: the server's parts. */
export interface Fake {
  store: PetStore;
  keyring: Keyring;
  clock: FakeClock;
  journal: RequestJournal;
  next: ScriptedAnswers;
  verdict: VerdictBook;
  /** When the server started (performance.now()). */
  startedAt: number;
  faults: FaultSettings;
  setFaults(settings: FaultSettings): void;
}

/** A route's answer; `value`: what its JSON says, for the library. */
export interface AdminReply extends Reply {
  value?: unknown;
}

/** What a handler is given: `body` as checked, `key` the path parameter, percent-decoded. */
export interface AdminRequest<T> {
  body: T;
  query: string;
  key: string;
  req?: IncomingMessage;
}

/** An operation: how it is served, and what the document says of it. */
interface AdminRoute<T = unknown> {
  operationId: string;
  summary: string;
  /** The body it takes; one that takes undefined may be left out. */
  body?: z.ZodMiniType<T>;
  parameters?: readonly Record<string, unknown>[];
  /** The schema of each answer that is not an error (null: no body). */
  answers: Record<number, z.ZodMiniType | null>;
  /** The errors it answers besides those every route answers, and every route with a body. */
  errors?: Record<number, string>;
  handle(fake: Fake, request: AdminRequest<T>): AdminReply | Promise<AdminReply>;
}

type Method = "GET" | "POST" | "PUT" | "DELETE";

/** A route; this ties its handler to the body it checks. */
const route = <T>(definition: AdminRoute<T>) => definition as AdminRoute;

const json = (status: number, value: unknown): AdminReply => ({
  status,
  body: JSON.stringify(value),
  value,
});
const invalid = (problems: readonly string[]) =>
  errorReply("invalid_admin_request", problems.join("; "));

export const health = (fake: Fake) => ({
  status: "ok" as const,
  pets: fake.store.size,
  uptimeSeconds: Math.floor((performance.now() - fake.startedAt) / 1000),
});

const clockState = ({ clock }: Fake) => ({
  now: isoTime(clock.now()),
  nowMs: clock.now(),
  offsetSeconds: clock.offsetSeconds,
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

const SECONDS_RULE = `must be a number of seconds from 0 to ${MAX_ADVANCE_SECONDS} (the clock only moves forward)`;
/** A step of the clock: the body of `POST /__admin/clock`, and of the library's clock.advance(). */
export const ClockBody = named(
  "AdvanceClock",
  strict(
    {
      advanceSeconds: z
        .number({ error: SECONDS_RULE })
        .check(
          z.gte(0, { error: SECONDS_RULE }),
          z.lte(MAX_ADVANCE_SECONDS, { error: SECONDS_RULE }),
        ),
    },
    'the body must be a JSON object {"advanceSeconds": N}',
  ),
);

const Faults = named("Faults", FaultsAnswer);

/**
 * A key as `GET /__admin/keys` shows it: redacted, with where its binding window stands.
 * The schema and its type have two names: the package exports the type alone.
 */
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
export type KeyEntry = z.infer<typeof KeyEntryAnswer>;

export function keyEntry({ keyring, clock }: Fake, account: Account): KeyEntry {
  const nowMs = clock.now();
  const { limit, remaining, resetSeconds } = keyring.decide(account, undefined, nowMs, false);
  return {
    key: redactKey(account.key),
    plan: account.plan,
    limit,
    remaining,
    reset: resetSeconds,
    perMinute: account.limits?.perMinute ?? null,
    perDay: account.limits?.perDay ?? null,
  };
}

const LATEST_CLOCK = isoTime(LATEST_CLOCK_MS);
let document: Record<string, unknown> | undefined;

const ADMIN_ROUTES: Record<string, Partial<Record<Method, AdminRoute>>> = {
  "/__admin/health": {
    GET: route({
      operationId: "health",
      summary: "Readiness: the number of pets and the uptime.",
      answers: {
        200: z.object({ status: z.literal("ok"), pets: count(), uptimeSeconds: count() }),
      },
      handle: (fake) => json(200, health(fake)),
    }),
  },
  "/__admin/reset": {
    POST: route({
      operationId: "reset",
      summary:
        "The store back to what it held at start-up (durably); rate limits, bans, the journal " +
        "the scripted answers and the verdict cleared.",
      body: z.optional(strict({}, "POST /__admin/reset takes no fields: send no body, or {}")),
      answers: { 200: z.object({ status: z.literal("reset"), pets: count() }) },
      errors: {
        500: "internal_error: the store could not be reset; unchanged",
        507: "insufficient_storage: the disk refused the write; unchanged",
      },
      // The store first: when it cannot be reset (it rejects), nothing is cleared.
      async handle(fake) {
        await fake.store.reset();
        fake.keyring.clear();
        fake.journal.clear();
        fake.next.clear();
        fake.verdict.clear();
        return json(200, { status: "reset", pets: fake.store.size });
      },
    }),
  },
  "/__admin/requests": {
    GET: route({
      operationId: "listRequests",
      summary:
        "The request journal, oldest first, a page at a time: each answer holds about " +
        `${PAGE_BYTES / 1024 / 1024} MiB of JSON at most; nextAfter says where the next one starts.`,
      parameters: FILTER_PARAMETERS,
      answers: { 200: RequestsAnswer },
      errors: { 400: "invalid_admin_request" },
      handle(fake, { query }) {
        const params = new URLSearchParams(query);
        const twice = [...params.keys()].find((name, i, names) => names.indexOf(name) !== i);
        if (twice !== undefined) return invalid([`${twice} is given more than once`]);
        const filter = check(JOURNAL_FILTER, Object.fromEntries(params), "filter");
        if (!filter.ok) return invalid(filter.problems);
        return json(200, fake.journal.page(filter.value, PAGE_BYTES));
      },
    }),
    DELETE: route({
      operationId: "clearRequests",
      summary: "Empties the journal (ids continue).",
      answers: { 204: null },
      handle(fake) {
        fake.journal.clear();
        return NO_CONTENT;
      },
    }),
  },
  "/__admin/next": {
    GET: route({
      operationId: "listNext",
      summary: "The scripted answers, in the order they were added, with how often each was used.",
      answers: { 200: NextRules },
      handle: (fake) => json(200, fake.next.list()),
    }),
    POST: route({
      operationId: "addNext",
      summary:
        "Adds a scripted answer: the next `times` requests that match (after authentication, " +
        "the rate limit, 404 and 405) get it instead of the faults. A scripted 429 counts " +
        `toward a ban as a real one does. ${MAX_RULES} rules at most (a spent one makes room).`,
      body: NextRuleBody,
      answers: { 201: RuleState },
      errors: {
        400: `invalid_admin_request (names the field); also ${MAX_RULES} rules with uses left`,
      },
      handle(fake, { body }) {
        const rule = fake.next.add(body);
        if (rule === undefined) {
          return invalid([
            `${MAX_RULES} rules with uses left are kept already; DELETE /__admin/next first`,
          ]);
        }
        return json(201, rule);
      },
    }),
    DELETE: route({
      operationId: "clearNext",
      summary: "Removes every scripted answer.",
      answers: { 204: null },
      handle(fake) {
        fake.next.clear();
        return NO_CONTENT;
      },
    }),
  },
  "/__admin/verdict": {
    GET: route({
      operationId: "verdict",
      summary:
        "The verdict on the app under test since the start or the last reset: the contract's " +
        "rules it broke (violations: early-retry, with a grace of " +
        `${GRACE_MS} ms; request-while-banned; no-backoff; duplicate-after-unknown-outcome; ` +
        "removed-endpoint) and warnings (deprecated-endpoint, repeated-create, unauthenticated). " +
        `${MAX_ITEMS} items of each list are kept at most.`,
      answers: { 200: VerdictAnswer },
      handle: (fake) => json(200, fake.verdict.verdict()),
    }),
  },
  "/__admin/clock": {
    GET: route({
      operationId: "getClock",
      summary: "The fake's time.",
      answers: { 200: ClockAnswer },
      handle: (fake) => json(200, clockState(fake)),
    }),
    POST: route({
      operationId: "advanceClock",
      summary:
        "Moves the fake's clock forward: rate-limit windows, bans, Date and X-RateLimit-Reset " +
        `follow. Up to ${LATEST_CLOCK} in all, so that every date the fake sends keeps a ` +
        "four-digit year.",
      body: ClockBody,
      answers: { 200: ClockAnswer },
      errors: {
        400:
          "invalid_admin_request (names the field), invalid_json or empty_body; also a step " +
          `that would take the clock past ${LATEST_CLOCK} (the message says how many seconds are left)`,
      },
      handle(fake, { body }) {
        const problem = fake.clock.advance(body.advanceSeconds);
        if (problem !== undefined) return invalid([`advanceSeconds: ${problem}`]);
        return json(200, clockState(fake));
      },
    }),
  },
  "/__admin/faults": {
    GET: route({
      operationId: "getFaults",
      summary: "Latency, fail rate and fail mode.",
      answers: { 200: Faults },
      handle: (fake) => json(200, faultsAnswer(fake.faults)),
    }),
    PUT: route({
      operationId: "setFaults",
      summary:
        "Replaces the fault settings (as --latency, --fail-rate, --fail-mode, --fault-seed).",
      body: named(
        "FaultsUpdate",
        described(
          FaultSettings,
          "Replaces every setting; an omitted one takes its default (none, 0, 503, random).",
        ),
      ),
      answers: { 200: Faults },
      handle(fake, { body }) {
        fake.setFaults(body);
        return json(200, faultsAnswer(body));
      },
    }),
  },
  "/__admin/keys": {
    GET: route({
      operationId: "listKeys",
      summary: "The keys (redacted) with their plans and remaining quota.",
      answers: { 200: named("Keys", z.object({ keys: z.array(KeyEntryAnswer) })) },
      handle: (fake) =>
        json(200, { keys: fake.keyring.list().map((account) => keyEntry(fake, account)) }),
    }),
    POST: route({
      operationId: "addKey",
      summary: "Adds a key, or gives a known key this plan (its counters kept).",
      body: named("NewKey", KeyFields),
      answers: { 201: KeyEntryAnswer, 200: KeyEntryAnswer },
      handle(fake, { body }) {
        const created = fake.keyring.add(body);
        const account = fake.keyring.list().find((known) => known.key === body.key)!;
        return json(created ? 201 : 200, keyEntry(fake, account));
      },
    }),
  },
  /** `{key}`: the rest of the path. */
  "/__admin/keys/{key}": {
    DELETE: route({
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
      handle: (fake, { key }) =>
        fake.keyring.remove(key)
          ? NO_CONTENT
          : errorReply("admin_key_not_found", "the fake has no such key (see GET /__admin/keys)"),
    }),
  },
  "/__admin/openapi.json": {
    GET: {
      operationId: "adminOpenApi",
      summary: "This document.",
      answers: { 200: z.looseObject({ openapi: z.literal("3.1.0") }) },
      handle(_fake, { req }) {
        document ??= adminOpenApi();
        const servers = [{ url: fakeOrigin(req!), description: FAKE_SERVER_DESCRIPTION }];
        return json(200, { ...document, servers });
      },
    },
  },
};

const OPERATIONS = Object.entries(ADMIN_ROUTES).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
);

/** "METHOD /path" of every route (HEAD aside). */
export const ADMIN_OPERATIONS = OPERATIONS.map(({ method, path }) => `${method} ${path}`);

/** The handler of `operationId`, for the library: its body is checked by the caller. */
export function adminOperation(operationId: string): AdminRoute["handle"] {
  return OPERATIONS.find((known) => known.operation.operationId === operationId)!.operation.handle;
}

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
const JSON_SCHEMA = { target: "draft-2020-12", io: "input" } as const;

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

function operationObject({ operationId, summary, parameters, body, ...route }: AdminRoute) {
  const responses: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(route.answers)) {
    const description = STATUS_CODES[status];
    responses[status] =
      schema === null ? { description } : { description, content: content(schema) };
  }
  const errors = { ...EVERY_ROUTE_ERRORS, ...(body && BODY_ERRORS), ...route.errors };
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
function adminOpenApi() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { path, method, operation } of OPERATIONS) {
    paths[path] = { ...paths[path], [method.toLowerCase()]: operationObject(operation) };
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

const ADMIN_PREFIX = "/__admin";
const KEY_PREFIX = `${ADMIN_PREFIX}/keys/`;

export function isAdminPath(path: string): boolean {
  return path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`);
}

/** The route's request, or the answer that refuses it (undefined: the client left). */
async function requestOf(
  route: AdminRoute,
  req: IncomingMessage,
  path: string,
  query: string,
): Promise<AdminRequest<unknown> | Reply | undefined> {
  let key = "";
  if (path.startsWith(KEY_PREFIX)) {
    try {
      key = decodeURIComponent(path.slice(KEY_PREFIX.length));
    } catch {
      return invalid(["the key in the path is not valid percent-encoding"]);
    }
  }
  if (route.body === undefined) return { body: undefined, query, key, req };
  const read = await readJsonBody(req);
  if (!read.ok && read.reply === undefined) return undefined;
  let given: unknown;
  if (read.ok) given = plainJson(read.value);
  else if (!read.empty) return read.reply;
  else if (!route.body.safeParse(undefined).success) {
    return invalid(["the body is empty; send a JSON object"]);
  }
  const checked = check(route.body, given);
  return checked.ok ? { body: checked.value, query, key, req } : invalid(checked.problems);
}

export function createAdminRoutes(fake: Fake, access: AdminAccess, responder: Responder) {
  function answer(res: ServerResponse, reply: Reply): void {
    responder.write(res, reply, ["Cache-Control", "no-store"]);
    responder.count(reply.status);
  }

  return function handleAdmin(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: string,
  ): void {
    const refused = refusal(access, req);
    if (refused !== undefined) return answer(res, refused);
    const routePath =
      path.startsWith(KEY_PREFIX) && path.length > KEY_PREFIX.length ? `${KEY_PREFIX}{key}` : path;
    // No path of the table, nor method node:http takes, is a name an object inherits.
    const methods = ADMIN_ROUTES[routePath];
    if (methods === undefined) {
      const message = `no control-plane route for ${printable(path)}; see ${ADMIN_PREFIX}/openapi.json`;
      return answer(res, errorReply("not_found", message));
    }
    const route = methods[(req.method === "HEAD" ? "GET" : req.method) as Method];
    if (route === undefined) {
      const allowed = Object.keys(methods)
        .flatMap((method) => (method === "GET" ? ["GET", "HEAD"] : [method]))
        .join(", ");
      return answer(res, methodNotAllowed(req.method, allowed));
    }
    void (async () => {
      const request = await requestOf(route, req, path, query);
      if (request === undefined) return;
      answer(res, "status" in request ? request : await route.handle(fake, request));
    })().catch((error: unknown) => {
      if (error instanceof StoreError && error.code === "not_stored" && !res.headersSent) {
        return answer(res, errorReply("insufficient_storage", error.message));
      }
      const reply = responder.failed(`${req.method} ${path}`, res, error);
      if (reply !== undefined) answer(res, reply);
    });
  };
}
