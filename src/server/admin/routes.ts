/**
 * `/__admin/*`, the control plane for test suites in any language (as WireMock's
 * `/__admin`), as one table of paths and their methods, shaped as the `paths` of
 * its OpenAPI document (admin-openapi.json, made from this table and the words
 * of scripts/openapi/admin.ts): each route with the body it takes (a zod schema
 * with its words) and its handler, the one implementation of the operation: the
 * library's RunningServer calls the same handlers (server.ts). The table is
 * served here: who may use it (access.ts), 404, 405 with `Allow`, bodies read as
 * a `POST /v1/pets` body is (1 MiB of application/json) and checked by the
 * route's schema, answers in JSON and errors in the service's Error shape.
 * Control-plane requests use no quota, need no API key and are not recorded in
 * the request journal.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import * as z from "zod/mini";
import document from "../../../admin-openapi.json" with { type: "json" };
import { redactKey } from "../../schema/redact-key.js";
import { check, plainJson, strict } from "../check.js";
import { FaultSettings } from "../faults.js";
import type { Account, Keyring } from "../auth.js";
import { KeyFields } from "../keys.js";
import { FAKE_SERVER_DESCRIPTION, fakeOrigin } from "../openapi-route.js";
import { errorReply, methodNotAllowed, NO_CONTENT, printable, type Reply } from "../reply.js";
import { readJsonBody } from "../request-body.js";
import type { Responder } from "../responder.js";
import { StoreError, type PetStore } from "../store/memory.js";
import { refusal, type AdminAccess } from "./access.js";
import { isoTime, MAX_ADVANCE_SECONDS, type FakeClock } from "./clock.js";
import { MAX_RULES, NextRuleBody, type ScriptedAnswers } from "./next.js";
import { JOURNAL_FILTER, PAGE_BYTES, type RequestJournal } from "./request-journal.js";
import type { VerdictBook } from "../verdict.js";

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
export type AdminReply = Reply & { value?: unknown };

/** What a handler is given: `body` as checked, `key` the path parameter, percent-decoded. */
export interface AdminRequest<T> {
  body: T;
  query: string;
  key: string;
  req?: IncomingMessage;
}

/** An operation: how it is served. */
interface AdminRoute<T = unknown> {
  /** The body it takes; one that takes undefined may be left out. */
  body?: z.ZodMiniType<T>;
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

const SECONDS_RULE = `must be a number of seconds from 0 to ${MAX_ADVANCE_SECONDS} (the clock only moves forward)`;
/** A step of the clock: the body of `POST /__admin/clock`, and of the library's clock.advance(). */
export const ClockBody = strict(
  {
    advanceSeconds: z
      .number({ error: SECONDS_RULE })
      .check(
        z.gte(0, { error: SECONDS_RULE }),
        z.lte(MAX_ADVANCE_SECONDS, { error: SECONDS_RULE }),
      ),
  },
  'the body must be a JSON object {"advanceSeconds": N}',
);

/** A key as `GET /__admin/keys` shows it; the package exports its type. */
export function keyEntry({ keyring, clock }: Fake, account: Account) {
  const nowMs = clock.now();
  const { limit, remaining, resetSeconds } = keyring.limit(account, undefined, nowMs, false);
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
export type KeyEntry = ReturnType<typeof keyEntry>;

export const ADMIN_ROUTES: Record<string, Partial<Record<Method, AdminRoute>>> = {
  "/__admin/health": {
    GET: route({ handle: (fake) => json(200, health(fake)) }),
  },
  "/__admin/reset": {
    POST: route({
      body: z.optional(strict({}, "POST /__admin/reset takes no fields: send no body, or {}")),
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
      handle(fake) {
        fake.journal.clear();
        return NO_CONTENT;
      },
    }),
  },
  "/__admin/next": {
    GET: route({ handle: (fake) => json(200, fake.next.list()) }),
    POST: route({
      body: NextRuleBody,
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
      handle(fake) {
        fake.next.clear();
        return NO_CONTENT;
      },
    }),
  },
  "/__admin/verdict": {
    GET: route({ handle: (fake) => json(200, fake.verdict.verdict()) }),
  },
  "/__admin/clock": {
    GET: route({ handle: (fake) => json(200, clockState(fake)) }),
    POST: route({
      body: ClockBody,
      handle(fake, { body }) {
        const problem = fake.clock.advance(body.advanceSeconds);
        if (problem !== undefined) return invalid([`advanceSeconds: ${problem}`]);
        return json(200, clockState(fake));
      },
    }),
  },
  "/__admin/faults": {
    GET: route({ handle: (fake) => json(200, fake.faults) }),
    PUT: route({
      body: FaultSettings,
      handle(fake, { body }) {
        fake.setFaults(body);
        return json(200, body);
      },
    }),
  },
  "/__admin/keys": {
    GET: route({
      handle: (fake) =>
        json(200, { keys: fake.keyring.list().map((account) => keyEntry(fake, account)) }),
    }),
    POST: route({
      body: KeyFields,
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
      handle: (fake, { key }) =>
        fake.keyring.remove(key)
          ? NO_CONTENT
          : errorReply("admin_key_not_found", "the fake has no such key (see GET /__admin/keys)"),
    }),
  },
  "/__admin/openapi.json": {
    GET: {
      handle(_fake, { req }) {
        const servers = [{ url: fakeOrigin(req!), description: FAKE_SERVER_DESCRIPTION }];
        return json(200, { ...document, servers });
      },
    },
  },
};

/** The handler of "METHOD /path" (under /__admin), for the library: its body is checked by the caller. */
export function adminOperation(operation: string): AdminRoute["handle"] {
  const [method, path] = operation.split(" ") as [Method, string];
  return ADMIN_ROUTES[`/__admin${path}`]![method]!.handle;
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
