/**
 * `/__admin/*` over HTTP, for test suites in any language (as WireMock's
 * `/__admin`): who may use it (access.ts), the routes and their methods, bodies
 * read with the same limits as a POST /v1/pets (1 MiB, application/json) and
 * checked strictly (bodies.ts), answers in JSON and errors in the service's Error
 * shape. Control-plane requests use no quota, need no API key and are not
 * recorded in the request journal.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { fakeOrigin } from "../openapi-route.js";
import { errorReply, printable, type Reply } from "../reply.js";
import { readJsonBody } from "../request-body.js";
import { StoreError } from "../store/types.js";
import { refusal, type AdminAccess } from "./access.js";
import { faultsAnswer, parseFaultsBody } from "../faults.js";
import { parseClockBody, parseKeyBody } from "./bodies.js";
import type { FakeClock } from "./clock.js";
import type { ControlPlane } from "./control-plane.js";
import { parseFilterQuery } from "./filters.js";
import { adminOpenApiText } from "./openapi.js";
import { PAGE_BYTES } from "./request-journal.js";
import { plainJson } from "../settings.js";

const ADMIN_PREFIX = "/__admin";
const KEYS_PREFIX = `${ADMIN_PREFIX}/keys/`;

export function isAdminPath(path: string): boolean {
  return path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`);
}

interface Request {
  req: IncomingMessage;
  query: string;
  /** DELETE /__admin/keys/{key}: the key, percent-decoded. */
  key: string;
}

/** A JSON answer (`json` undefined: 204 without a body), or an Error reply. */
type Outcome = { status: number; json?: unknown } | Reply;
type Handler = (request: Request) => Outcome | Promise<Outcome>;
type Methods = Partial<Record<"GET" | "POST" | "PUT" | "DELETE", Handler>>;

export interface AdminHooks {
  clock: FakeClock;
  /** Counts an answer in the server's stats. */
  count(status: number): void;
  /** A line in the fake's log. */
  note(message: string): void;
}

function invalid(problems: readonly string[]): Reply {
  return errorReply("invalid_admin_request", problems.join("; "));
}

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

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 0
  );
}

export function createAdminRoutes(plane: ControlPlane, access: AdminAccess, hooks: AdminHooks) {
  const documents = new Map<string, string>();

  const routes: Record<string, Methods> = {
    [`${ADMIN_PREFIX}/health`]: { GET: () => ({ status: 200, json: plane.health() }) },
    [`${ADMIN_PREFIX}/reset`]: {
      POST: async ({ req }) => {
        const body = await readBody(req, true);
        if (!body.ok) return body.reply ?? { status: 0 };
        if (body.value !== undefined && !isEmptyObject(body.value)) {
          return invalid(["POST /__admin/reset takes no fields: send no body, or {}"]);
        }
        try {
          await plane.reset();
        } catch (error) {
          return resetFailure(error);
        }
        return { status: 200, json: { status: "reset", pets: plane.health().pets } };
      },
    },
    [`${ADMIN_PREFIX}/requests`]: {
      GET: ({ query }) => {
        const filter = parseFilterQuery(query);
        if (!filter.ok) return invalid(filter.problems);
        // A page at a time, each entry's JSON made on its own: never one huge string.
        const { items, nextAfter } = plane.requestsPage(filter.value, PAGE_BYTES);
        return {
          status: 200,
          json:
            `{"requests":[${items.join(",")}],"journalSize":${plane.journalSize},` +
            `"lastId":${plane.lastRequestId},"nextAfter":${nextAfter}}`,
        };
      },
      DELETE: () => {
        plane.clearRequests();
        return { status: 204 };
      },
    },
    [`${ADMIN_PREFIX}/clock`]: {
      GET: () => ({ status: 200, json: plane.clock() }),
      POST: async ({ req }) => {
        const body = await readBody(req, false);
        if (!body.ok) return body.reply ?? { status: 0 };
        const seconds = parseClockBody(body.value);
        if (!seconds.ok) return invalid(seconds.problems);
        const moved = plane.advanceClock(seconds.value);
        if (!moved.ok) return invalid([`advanceSeconds: ${moved.problem}`]);
        return { status: 200, json: moved.clock };
      },
    },
    [`${ADMIN_PREFIX}/faults`]: {
      GET: () => ({ status: 200, json: faultsAnswer(plane.faults()) }),
      PUT: async ({ req }) => {
        const body = await readBody(req, false);
        if (!body.ok) return body.reply ?? { status: 0 };
        const faults = parseFaultsBody(body.value);
        if (!faults.ok) return invalid(faults.problems);
        plane.setFaults(faults.value);
        return { status: 200, json: faultsAnswer(plane.faults()) };
      },
    },
    [`${ADMIN_PREFIX}/keys`]: {
      GET: () => ({ status: 200, json: { keys: plane.keyEntries() } }),
      POST: async ({ req }) => {
        const body = await readBody(req, false);
        if (!body.ok) return body.reply ?? { status: 0 };
        const spec = parseKeyBody(body.value);
        if (!spec.ok) return invalid(spec.problems);
        const { entry, created } = plane.addKey(spec.value);
        return { status: created ? 201 : 200, json: entry };
      },
    },
    [`${ADMIN_PREFIX}/openapi.json`]: {
      GET: ({ req }) => {
        const origin = fakeOrigin(req);
        let text = documents.get(origin);
        if (text === undefined) {
          text = adminOpenApiText(origin);
          if (documents.size >= 8) documents.delete(documents.keys().next().value!);
          documents.set(origin, text);
        }
        return { status: 200, json: text };
      },
    },
  };
  const keyRoute: Methods = {
    DELETE: ({ key }) =>
      plane.removeKey(key)
        ? { status: 204 }
        : errorReply("admin_key_not_found", "the fake has no such key (see GET /__admin/keys)"),
  };

  function resetFailure(error: unknown): Reply {
    if (error instanceof StoreError && error.code === "not_stored") {
      return errorReply("insufficient_storage", error.message);
    }
    hooks.note(
      `the store could not be reset: ${error instanceof Error ? error.message : String(error)}`,
    );
    return errorReply(
      "internal_error",
      "the store could not be reset (the fake's log says why); it still serves the pets it had",
    );
  }

  function answer(req: IncomingMessage, res: ServerResponse, outcome: Outcome): void {
    if (outcome.status === 0) return; // the client left before its body arrived
    const headers = ["Cache-Control", "no-store"];
    let body: string | Buffer | undefined;
    if ("body" in outcome) {
      body = outcome.body;
      if (outcome.headers !== undefined) headers.push(...outcome.headers);
      if (outcome.closeConnection === true) headers.push("Connection", "close");
    } else if (outcome.json !== undefined) {
      body = typeof outcome.json === "string" ? outcome.json : JSON.stringify(outcome.json);
    }
    if (body !== undefined) {
      headers.push(
        "Content-Type",
        "application/json",
        "Content-Length",
        String(Buffer.byteLength(body)),
      );
    }
    const date = hooks.clock.dateHeader();
    if (date !== undefined) headers.push("Date", date);
    res.writeHead(outcome.status, headers);
    res.end(body);
    hooks.count(outcome.status);
  }

  function handleAdmin(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: string,
  ): void {
    const refused = refusal(access, req);
    if (refused !== undefined) return answer(req, res, refused);
    let key = "";
    let methods = routes[path];
    if (methods === undefined && path.startsWith(KEYS_PREFIX) && path.length > KEYS_PREFIX.length) {
      try {
        key = decodeURIComponent(path.slice(KEYS_PREFIX.length));
        methods = keyRoute;
      } catch {
        return answer(req, res, invalid(["the key in the path is not valid percent-encoding"]));
      }
    }
    if (methods === undefined) {
      return answer(
        req,
        res,
        errorReply(
          "not_found",
          `no control-plane route for ${printable(path)}; see ${ADMIN_PREFIX}/openapi.json`,
        ),
      );
    }
    const method = req.method === "HEAD" ? "GET" : req.method;
    const handler = methods[method as keyof Methods];
    if (handler === undefined) {
      const allowed = Object.keys(methods)
        .flatMap((m) => (m === "GET" ? ["GET", "HEAD"] : [m]))
        .join(", ");
      return answer(
        req,
        res,
        errorReply(
          "method_not_allowed",
          `${printable(req.method ?? "")} is not allowed here; allowed: ${allowed}`,
          ["Allow", allowed],
        ),
      );
    }
    Promise.resolve()
      .then(() => handler({ req, query, key }))
      .then(
        (outcome) => answer(req, res, outcome),
        (error: unknown) => {
          hooks.note(
            `internal error on ${req.method} ${path}: ${error instanceof Error ? error.message : String(error)}`,
          );
          if (res.headersSent) return void res.destroy();
          answer(
            req,
            res,
            errorReply("internal_error", "the fake failed unexpectedly; see its log"),
          );
        },
      );
  }

  /** "METHOD /path" of every route served (HEAD aside), as the OpenAPI document lists them. */
  const served = [
    ...Object.entries(routes).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method} ${path}`),
    ),
    ...Object.keys(keyRoute).map((method) => `${method} ${KEYS_PREFIX}{key}`),
  ];
  return Object.assign(handleAdmin, { routes: served });
}
