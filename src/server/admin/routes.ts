/**
 * `/__admin/*`, the control plane for test suites in any language (as WireMock's
 * `/__admin`), as one table of routes: each with its method and path, the body it
 * takes and the answers it gives (zod schemas with their words: bodies.ts), what
 * its OpenAPI entry says (openapi.ts makes the document from the table), and its
 * handler, the one implementation of the operation: the library's RunningServer
 * calls the same handlers (server.ts). The table is served here: who may use it
 * (access.ts), 404, 405 with `Allow`, bodies read as a `POST /v1/pets` body is (1
 * MiB of application/json) and checked by the route's schema, answers in JSON
 * and errors in the service's Error shape. Control-plane requests use no quota,
 * need no API key and are not recorded in the request journal.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import * as z from "zod/mini";
import { redactKey } from "../../schema/redact-key.js";
import { check, plainJson } from "../check.js";
import { faultsAnswer, type FaultSettings } from "../faults.js";
import type { Account, Keyring } from "../auth.js";
import { FAKE_SERVER_DESCRIPTION, fakeOrigin } from "../openapi-route.js";
import { errorReply, printable, type Reply } from "../reply.js";
import { readJsonBody } from "../request-body.js";
import type { Responder } from "../responder.js";
import { StoreError, type PetStore } from "../store/types.js";
import { refusal, type AdminAccess } from "./access.js";
import {
  ClockAnswer,
  ClockBody,
  count,
  Faults,
  FaultsBody,
  KeyBody,
  KeyEntryAnswer,
  named,
  NoFields,
  type KeyEntry,
} from "./bodies.js";
import { isoTime, LATEST_CLOCK_MS, type FakeClock } from "./clock.js";
import { MAX_RULES, NextRuleBody, NextRules, RuleState, type ScriptedAnswers } from "./next.js";
import { adminOpenApi, type DocumentedRoute } from "./openapi.js";
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

/** A route: how it is served, and what the document (openapi.ts) says of it. */
export interface AdminRoute<T = unknown> extends DocumentedRoute {
  body?: z.ZodMiniType<T>;
  handle(fake: Fake, request: AdminRequest<T>): AdminReply | Promise<AdminReply>;
}

/** A route; this ties its handler to the body it checks. */
const route = <T>(definition: AdminRoute<T>) => definition as AdminRoute;

const json = (status: number, value: unknown): AdminReply => ({
  status,
  body: JSON.stringify(value),
  value,
});
const NO_CONTENT: AdminReply = { status: 204, body: "" };
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

/** A key as `GET /__admin/keys` shows it: redacted, with where its binding window stands. */
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

export const ADMIN_ROUTES: readonly AdminRoute[] = [
  route({
    method: "GET",
    path: "/__admin/health",
    operationId: "health",
    summary: "Readiness: the number of pets and the uptime.",
    answers: { 200: z.object({ status: z.literal("ok"), pets: count(), uptimeSeconds: count() }) },
    handle: (fake) => json(200, health(fake)),
  }),
  route({
    method: "POST",
    path: "/__admin/reset",
    operationId: "reset",
    summary:
      "The store back to what it held at start-up (durably); rate limits, bans, the journal " +
      "the scripted answers and the verdict cleared.",
    body: NoFields,
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
  route({
    method: "GET",
    path: "/__admin/requests",
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
  route({
    method: "DELETE",
    path: "/__admin/requests",
    operationId: "clearRequests",
    summary: "Empties the journal (ids continue).",
    answers: { 204: null },
    handle(fake) {
      fake.journal.clear();
      return NO_CONTENT;
    },
  }),
  route({
    method: "GET",
    path: "/__admin/next",
    operationId: "listNext",
    summary: "The scripted answers, in the order they were added, with how often each was used.",
    answers: { 200: NextRules },
    handle: (fake) => json(200, fake.next.list()),
  }),
  route({
    method: "POST",
    path: "/__admin/next",
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
  route({
    method: "DELETE",
    path: "/__admin/next",
    operationId: "clearNext",
    summary: "Removes every scripted answer.",
    answers: { 204: null },
    handle(fake) {
      fake.next.clear();
      return NO_CONTENT;
    },
  }),
  route({
    method: "GET",
    path: "/__admin/verdict",
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
  route({
    method: "GET",
    path: "/__admin/clock",
    operationId: "getClock",
    summary: "The fake's time.",
    answers: { 200: ClockAnswer },
    handle: (fake) => json(200, clockState(fake)),
  }),
  route({
    method: "POST",
    path: "/__admin/clock",
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
  route({
    method: "GET",
    path: "/__admin/faults",
    operationId: "getFaults",
    summary: "Latency, fail rate and fail mode.",
    answers: { 200: Faults },
    handle: (fake) => json(200, faultsAnswer(fake.faults)),
  }),
  route({
    method: "PUT",
    path: "/__admin/faults",
    operationId: "setFaults",
    summary: "Replaces the fault settings (as --latency, --fail-rate, --fail-mode, --fault-seed).",
    body: FaultsBody,
    answers: { 200: Faults },
    handle(fake, { body }) {
      fake.setFaults(body);
      return json(200, faultsAnswer(body));
    },
  }),
  route({
    method: "GET",
    path: "/__admin/keys",
    operationId: "listKeys",
    summary: "The keys (redacted) with their plans and remaining quota.",
    answers: { 200: named("Keys", z.object({ keys: z.array(KeyEntryAnswer) })) },
    handle: (fake) =>
      json(200, { keys: fake.keyring.list().map((account) => keyEntry(fake, account)) }),
  }),
  route({
    method: "POST",
    path: "/__admin/keys",
    operationId: "addKey",
    summary: "Adds a key, or gives a known key this plan (its counters kept).",
    body: KeyBody,
    answers: { 201: KeyEntryAnswer, 200: KeyEntryAnswer },
    handle(fake, { body }) {
      const created = fake.keyring.add(body);
      const account = fake.keyring.list().find((known) => known.key === body.key)!;
      return json(created ? 201 : 200, keyEntry(fake, account));
    },
  }),
  route({
    method: "DELETE",
    path: "/__admin/keys/{key}",
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
  {
    method: "GET",
    path: "/__admin/openapi.json",
    operationId: "adminOpenApi",
    summary: "This document.",
    answers: { 200: z.looseObject({ openapi: z.literal("3.1.0") }) },
    handle(_fake, { req }) {
      document ??= adminOpenApi(ADMIN_ROUTES);
      const servers = [{ url: fakeOrigin(req!), description: FAKE_SERVER_DESCRIPTION }];
      return json(200, { ...document, servers });
    },
  },
];

/** "METHOD /path" of every route (HEAD aside). */
export const ADMIN_OPERATIONS = ADMIN_ROUTES.map(({ method, path }) => `${method} ${path}`);

/** The handler of `operationId`, for the library: its body is checked by the caller. */
export function adminOperation(operationId: string): AdminRoute["handle"] {
  return ADMIN_ROUTES.find((known) => known.operationId === operationId)!.handle;
}

const ADMIN_PREFIX = "/__admin";

export function isAdminPath(path: string): boolean {
  return path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`);
}

/** Where the route's `{key}` starts in its path; -1 for a route without one. */
const keyAt = (route: AdminRoute) => route.path.indexOf("{");

function servesPath(route: AdminRoute, path: string): boolean {
  const at = keyAt(route);
  if (at === -1) return path === route.path;
  return path.length > at && path.startsWith(route.path.slice(0, at));
}

/** The route's request, or the answer that refuses it (undefined: the client left). */
async function requestOf(
  route: AdminRoute,
  req: IncomingMessage,
  path: string,
  query: string,
): Promise<AdminRequest<unknown> | Reply | undefined> {
  let key = "";
  if (keyAt(route) !== -1) {
    try {
      key = decodeURIComponent(path.slice(keyAt(route)));
    } catch {
      return invalid(["the key in the path is not valid percent-encoding"]);
    }
  }
  if (route.body === undefined) return { body: undefined, query, key, req };
  const read = await readJsonBody(req);
  if (!read.ok && read.reply === undefined) return undefined;
  let given: unknown;
  if (read.ok) given = plainJson(read.value);
  else if ((JSON.parse(String(read.reply.body)) as { code: string }).code !== "empty_body") {
    return read.reply;
  } else if (!route.body.safeParse(undefined).success) {
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
    const routes = ADMIN_ROUTES.filter((route) => servesPath(route, path));
    if (routes.length === 0) {
      const message = `no control-plane route for ${printable(path)}; see ${ADMIN_PREFIX}/openapi.json`;
      return answer(res, errorReply("not_found", message));
    }
    const method = req.method === "HEAD" ? "GET" : req.method;
    const route = routes.find((candidate) => candidate.method === method);
    if (route === undefined) {
      const allowed = routes
        .flatMap(({ method }) => (method === "GET" ? ["GET", "HEAD"] : [method]))
        .join(", ");
      const message = `${printable(req.method ?? "")} is not allowed here; allowed: ${allowed}`;
      return answer(res, errorReply("method_not_allowed", message, ["Allow", allowed]));
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
