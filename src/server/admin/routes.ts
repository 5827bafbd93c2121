/**
 * `/__admin/*` over HTTP, for test suites in any language (as WireMock's
 * `/__admin`): who may use it (access.ts), the route of a path and method
 * (operations.ts), bodies read with the same limits as a POST /v1/pets (1 MiB,
 * application/json) and checked by the route, answers in JSON and errors in the
 * service's Error shape. Control-plane requests use no quota, need no API key and
 * are not recorded in the request journal.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import * as z from "zod/mini";
import { FAKE_SERVER_DESCRIPTION, fakeOrigin } from "../openapi-route.js";
import { errorReply, printable, type Reply } from "../reply.js";
import { readJsonBody } from "../request-body.js";
import { plainJson } from "../settings.js";
import { refusal, type AdminAccess } from "./access.js";
import type { FakeClock } from "./clock.js";
import type { ControlPlane } from "./control-plane.js";
import { adminOpenApi } from "./openapi.js";
import { ADMIN_ROUTES, invalid, json, type AdminRoute } from "./operations.js";

const ADMIN_PREFIX = "/__admin";

export function isAdminPath(path: string): boolean {
  return path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`);
}

export interface AdminHooks {
  clock: FakeClock;
  /** Counts an answer in the server's stats. */
  count(status: number): void;
  /** A line in the fake's log. */
  note(message: string): void;
}

let document: Record<string, unknown> | undefined;

/** Every route: the table's, and the document made from it (with this route too). */
const ROUTES: readonly AdminRoute[] = [
  ...ADMIN_ROUTES,
  {
    method: "GET",
    path: "/__admin/openapi.json",
    operationId: "adminOpenApi",
    summary: "This document.",
    answers: { 200: z.looseObject({ openapi: z.literal("3.1.0") }) },
    handle(_plane, { req }) {
      document ??= adminOpenApi(ROUTES);
      const servers = [{ url: fakeOrigin(req), description: FAKE_SERVER_DESCRIPTION }];
      return json(200, { ...document, servers });
    },
  },
];

/** "METHOD /path" of every route (HEAD aside). */
export const ADMIN_OPERATIONS = ROUTES.map(({ method, path }) => `${method} ${path}`);

/** The body of a POST or PUT as plain JSON; `optional`: no body at all is fine too. */
async function readBody(
  req: IncomingMessage,
  optional: boolean,
): Promise<{ ok: true; value: unknown } | { ok: false; reply: Reply | undefined }> {
  const read = await readJsonBody(req);
  if (read.ok) return { ok: true, value: plainJson(read.value) };
  const reply = read.reply;
  const empty =
    reply !== undefined &&
    (JSON.parse(String(reply.body)) as { code: string }).code === "empty_body";
  if (optional && empty) return { ok: true, value: undefined };
  if (empty) return { ok: false, reply: invalid(["the body is empty; send a JSON object"]) };
  return { ok: false, reply };
}

/** Where the route's `{key}` starts in its path; -1 for a route without one. */
const keyAt = (route: AdminRoute) => route.path.indexOf("{");

function servesPath(route: AdminRoute, path: string): boolean {
  const at = keyAt(route);
  if (at === -1) return path === route.path;
  return path.length > at && path.startsWith(route.path.slice(0, at));
}

export function createAdminRoutes(plane: ControlPlane, access: AdminAccess, hooks: AdminHooks) {
  function answer(res: ServerResponse, reply: Reply): void {
    const headers = ["Cache-Control", "no-store", ...(reply.headers ?? [])];
    if (reply.closeConnection === true) headers.push("Connection", "close");
    if (reply.body.length > 0) {
      headers.push("Content-Type", "application/json");
      headers.push("Content-Length", String(Buffer.byteLength(reply.body)));
    }
    const date = hooks.clock.dateHeader();
    if (date !== undefined) headers.push("Date", date);
    res.writeHead(reply.status, headers);
    res.end(reply.body);
    hooks.count(reply.status);
  }

  async function run(
    route: AdminRoute,
    req: IncomingMessage,
    path: string,
    query: string,
  ): Promise<Reply | undefined> {
    let key = "";
    if (keyAt(route) !== -1) {
      try {
        key = decodeURIComponent(path.slice(keyAt(route)));
      } catch {
        return invalid(["the key in the path is not valid percent-encoding"]);
      }
    }
    let body: unknown;
    if (route.body !== undefined) {
      const read = await readBody(req, route.body.optional === true);
      // No reply: the client left before its body arrived.
      if (!read.ok) return read.reply;
      const checked = route.body.parse(read.value);
      if (!checked.ok) return invalid(checked.problems);
      body = checked.value;
    }
    return route.handle(plane, { body, query, key, req, note: hooks.note });
  }

  return function handleAdmin(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: string,
  ): void {
    const refused = refusal(access, req);
    if (refused !== undefined) return answer(res, refused);
    const routes = ROUTES.filter((route) => servesPath(route, path));
    if (routes.length === 0) {
      return answer(
        res,
        errorReply(
          "not_found",
          `no control-plane route for ${printable(path)}; see ${ADMIN_PREFIX}/openapi.json`,
        ),
      );
    }
    const method = req.method === "HEAD" ? "GET" : req.method;
    const route = routes.find((candidate) => candidate.method === method);
    if (route === undefined) {
      const allowed = routes
        .flatMap(({ method }) => (method === "GET" ? ["GET", "HEAD"] : [method]))
        .join(", ");
      return answer(
        res,
        errorReply(
          "method_not_allowed",
          `${printable(req.method ?? "")} is not allowed here; allowed: ${allowed}`,
          ["Allow", allowed],
        ),
      );
    }
    run(route, req, path, query).then(
      (reply) => reply && answer(res, reply),
      (error: unknown) => {
        hooks.note(
          `internal error on ${req.method} ${path}: ${error instanceof Error ? error.message : String(error)}`,
        );
        if (res.headersSent) return void res.destroy();
        answer(res, errorReply("internal_error", "the fake failed unexpectedly; see its log"));
      },
    );
  };
}
