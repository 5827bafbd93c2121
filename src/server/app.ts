/**
 * The HTTP layer of the fake, as a node:http request handler that does not listen.
 * Every request goes through the same steps: route, a CORS preflight (answered
 * at once), rate limit (per key, or per client address without a valid key), a
 * request node:http would refuse (no Host, an unmet Expect), authentication,
 * method, faults, then the operation. Every response carries the rate-limit and
 * CORS headers, including the ones written straight to the socket for CONNECT
 * and for malformed requests. `/__admin/*` is the control plane (admin/): it goes
 * there before any of those steps. Answered requests are recorded in the request
 * journal (admin/request-journal.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { deprecationHeaderValues } from "../schema/deprecation.js";
import type { AccessLog } from "./access-log.js";
import { adminAccess } from "./admin/access.js";
import { FakeClock, type Clock } from "./admin/clock.js";
import { ControlPlane } from "./admin/control-plane.js";
import { DEFAULT_JOURNAL_SIZE, JournalEntry, RequestJournal } from "./admin/request-journal.js";
import { createAdminRoutes, isAdminPath } from "./admin/routes.js";
import { Keyring, type Identity } from "./auth.js";
import { createCors, type CorsOption } from "./cors.js";
import { FAULT_RETRY_AFTER_SECONDS, FaultInjector, type FaultOptions } from "./faults.js";
import { createHomeRoute, isHomePath } from "./home/route.js";
import type { ApiKeySpec } from "./keys.js";
import { RequestLimiter } from "./limiter.js";
import { PageCache } from "./page-cache.js";
import { createOpenApiRoute } from "./openapi-route.js";
import { createPet, getPet, listPets } from "./pet-routes.js";
import { DEFAULT_BAN_POLICY, type BanPolicy } from "./rate-limit.js";
import { errorReply, printable, unauthorizedReply, type Reply } from "./reply.js";
import { clientErrorReply, writeSocketAnswer } from "./socket-answer.js";
import type { PetStore } from "./store/types.js";

export type { Clock } from "./admin/clock.js";

export interface AppOptions {
  keys: readonly ApiKeySpec[];
  clock?: Clock;
  /** Access log; none when undefined. */
  log?: AccessLog;
  faults?: FaultOptions;
  ban?: BanPolicy;
  /** CORS: true (the default) for any origin, a list of origins, or false for off. */
  cors?: CorsOption;
  /** Requests kept in the request journal; 0 turns it off. Default 1,000. */
  journalSize?: number;
  /**
   * Where the server listens and its admin token: the control plane is open on a
   * loopback address, off elsewhere without a token. Default: off.
   */
  admin?: { host: string; token?: string };
}

export interface ServerStats {
  /** Responses sent, by HTTP status. */
  byStatus: Record<number, number>;
  /** Responses sent in all. */
  responses: number;
  /** Connections destroyed on purpose by fault injection (no response). */
  resets: number;
}

export interface App {
  (req: IncomingMessage, res: ServerResponse): void;
  /** For `server.on("checkExpectation")`: an Expect other than 100-continue gets a 417 Error body. */
  handleExpectation(req: IncomingMessage, res: ServerResponse): void;
  /** For `server.on("connect")`: CONNECT gets a 405 Error body; the fake is not a proxy. */
  handleConnect(req: IncomingMessage, socket: Duplex): void;
  /** For `server.on("clientError")`: malformed or too slow requests get an Error body too. */
  handleClientError(error: Error & { code?: string }, socket: Duplex): void;
  stats(): ServerStats;
  /** The control plane's operations, for the library's RunningServer. */
  control: ControlPlane;
  /** Shutting down: responses ask clients to close; delayed requests are dropped once `closed`. */
  drain(): void;
  close(): void;
}

const DEPRECATION_HEADERS = Object.entries(deprecationHeaderValues()).flat();

const enum Route {
  None,
  Pets,
  Pet,
  OpenApi,
}
const PET_PREFIX = "/v1/pets/";
const ALLOW: Record<Route, string> = {
  [Route.None]: "",
  [Route.Pets]: "GET, HEAD, POST",
  [Route.Pet]: "GET, HEAD",
  [Route.OpenApi]: "GET, HEAD",
};

function routeOf(path: string): Route {
  if (path === "/v1/pets") return Route.Pets;
  if (path.startsWith(PET_PREFIX)) {
    return path.length > PET_PREFIX.length && path.indexOf("/", PET_PREFIX.length) === -1
      ? Route.Pet
      : Route.None;
  }
  return path === "/v1/openapi.json" ? Route.OpenApi : Route.None;
}

function underV1(path: string): boolean {
  return path === "/v1" || path.startsWith("/v1/");
}

/** Every method the fake serves somewhere. */
const ALL_METHODS = "GET, HEAD, POST";

/** An HTTP/1.1 request without Host: node:http would answer it 400 with no body. */
function lacksHost(req: IncomingMessage): boolean {
  return req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1;
}

export function createApp(store: PetStore, options: AppOptions): App {
  const clock = new FakeClock(options.clock);
  const log = options.log;
  const logRequests = log?.logsRequests === true;
  const ban = options.ban ?? DEFAULT_BAN_POLICY;
  const keyring = new Keyring(options.keys);
  const cors = createCors(options.cors);
  const limiter = new RequestLimiter(ban);
  const activeFaults = (settings: FaultOptions) => {
    const injector = new FaultInjector(settings);
    return injector.inactive ? undefined : injector;
  };
  let faultSettings = options.faults ?? {};
  let faults = activeFaults(faultSettings);
  const journal = new RequestJournal(options.journalSize ?? DEFAULT_JOURNAL_SIZE);
  const journaling = journal.capacity > 0;
  const timed = logRequests || journaling;
  const control = new ControlPlane({
    store,
    keys: options.keys,
    keyring,
    limiter,
    clock,
    journal,
    faults: {
      get: () => faultSettings,
      set: (settings) => {
        faults = activeFaults(settings);
        faultSettings = settings;
      },
    },
  });
  const admin = createAdminRoutes(
    control,
    adminAccess(options.admin?.host ?? "0.0.0.0", options.admin?.token),
    { clock, count, note: (message) => log?.note(message) },
  );
  const pages = new PageCache(store);
  const counts = new Map<number, number>();
  let responses = 0;
  let resets = 0;
  let draining = false;
  let closed = false;
  const openApiDocument = createOpenApiRoute();
  const home = createHomeRoute({
    list: (query) => listPets(pages, query),
    openApi: openApiDocument,
  });

  function count(status: number): void {
    counts.set(status, (counts.get(status) ?? 0) + 1);
    responses++;
  }

  function send(
    req: IncomingMessage,
    res: ServerResponse,
    reply: Reply,
    limitHeaders: readonly string[],
    route: Route,
    startedAt: number,
  ): void {
    const headers = [
      "Content-Type",
      "application/json",
      "Content-Length",
      String(typeof reply.body === "string" ? Buffer.byteLength(reply.body) : reply.body.length),
      ...limitHeaders,
      ...cors.headers(req.headers.origin),
    ];
    if (route === Route.Pet) headers.push(...DEPRECATION_HEADERS);
    if (reply.headers !== undefined) headers.push(...reply.headers);
    if (reply.closeConnection === true || draining) headers.push("Connection", "close");
    // With an injected or moved clock, Date must agree with X-RateLimit-Reset, as on a real service.
    const date = clock.dateHeader();
    if (date !== undefined) headers.push("Date", date);
    res.writeHead(reply.status, headers);
    res.end(reply.body);
    count(reply.status);
    if (logRequests) logRequest(req, reply.status, startedAt);
    if (journaling) journal.finish(req, reply.status, performance.now() - startedAt);
  }

  /** `outcome`: the status sent, or `reset` for a connection closed on purpose. */
  function logRequest(req: IncomingMessage, outcome: number | "reset", startedAt: number): void {
    const url = req.url ?? "";
    const query = url.indexOf("?");
    log!.request(
      req.method ?? "-",
      query === -1 ? url : url.slice(0, query),
      outcome,
      performance.now() - startedAt,
    );
  }

  function fail(req: IncomingMessage, res: ServerResponse, error: unknown): Reply | undefined {
    log?.note(`internal error on ${req.method} request: ${describeError(error)}`);
    if (res.headersSent) {
      res.destroy();
      return undefined;
    }
    return errorReply("internal_error", "the fake failed unexpectedly; see its log");
  }

  function resetConnection(req: IncomingMessage, startedAt: number): void {
    req.socket.destroy();
    resets++;
    if (logRequests) logRequest(req, "reset", startedAt);
    if (journaling) journal.finish(req, null, performance.now() - startedAt);
  }

  function operate(
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    path: string,
    query: string,
    limitHeaders: readonly string[],
    resetAfter: boolean,
    startedAt: number,
  ): void {
    const finish = (reply: Reply | undefined) => {
      if (reply === undefined) return;
      if (resetAfter) resetConnection(req, startedAt);
      else send(req, res, reply, limitHeaders, route, startedAt);
    };
    if (route === Route.Pets && req.method === "POST") {
      const keep = journaling ? (bytes: Buffer) => journal.keepBody(req, bytes) : undefined;
      createPet(store, req, keep).then(
        (reply) => {
          finish(reply);
        },
        (error: unknown) => finish(fail(req, res, error)),
      );
      return;
    }
    let reply: Reply | undefined;
    try {
      reply =
        route === Route.Pets
          ? listPets(pages, query)
          : getPet(store, path.slice(PET_PREFIX.length));
    } catch (error) {
      reply = fail(req, res, error);
    }
    finish(reply);
  }

  function handle(req: IncomingMessage, res: ServerResponse, unmetExpectation = false): void {
    const startedAt = timed ? performance.now() : 0;
    const url = req.url ?? "/";
    const queryAt = url.indexOf("?");
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    // The home page (GET /, /__home/*) is outside the API: no key, no quota used.
    if (isHomePath(path)) {
      const identity = keyring.identify(req.headers.authorization);
      const limit = limiter.check(identity, req.socket.remoteAddress, clock.now(), false);
      const status = home(req, res, path, limit.headers)!;
      count(status);
      if (logRequests) logRequest(req, status, startedAt);
      return;
    }
    const route = routeOf(path);
    if (route === Route.None && isAdminPath(path)) {
      return admin(req, res, path, queryAt === -1 ? "" : url.slice(queryAt + 1));
    }
    const identity = keyring.identify(req.headers.authorization);
    if (req.method === "OPTIONS" && !unmetExpectation && underV1(path)) {
      const grants = cors.preflight(req.headers);
      if (grants !== undefined) return answerPreflight(req, res, identity, grants, startedAt);
    }
    const nowMs = clock.now();
    const limit = limiter.check(identity, req.socket.remoteAddress, nowMs, true);
    if (journaling) {
      const plan = typeof identity === "object" ? identity.plan : null;
      journal.begin(req, new JournalEntry(nowMs, req.method ?? "-", url, path.length, plan));
    }
    const limitHeaders = limit.headers;
    if (limit.refusal !== undefined) {
      return send(req, res, limit.refusal, limitHeaders, route, startedAt);
    }
    if (lacksHost(req) || unmetExpectation) {
      const reply = lacksHost(req)
        ? errorReply("bad_request", "an HTTP/1.1 request must have a Host header")
        : errorReply(
            "expectation_failed",
            `the expectation ${printable(req.headers.expect ?? "")} cannot be met; only 100-continue is supported`,
          );
      return send(req, res, { ...reply, closeConnection: true }, limitHeaders, route, startedAt);
    }
    if (typeof identity !== "object" && route !== Route.OpenApi) {
      return send(req, res, unauthorizedReply(identity), limitHeaders, route, startedAt);
    }
    if (route === Route.None) {
      const reply = errorReply(
        "not_found",
        `no route for ${printable(path)}; the API is under /v1`,
      );
      return send(req, res, reply, limitHeaders, route, startedAt);
    }
    const method = req.method;
    if (!(method === "GET" || method === "HEAD" || (method === "POST" && route === Route.Pets))) {
      const reply = errorReply(
        "method_not_allowed",
        `${printable(method ?? "")} is not allowed here; allowed: ${ALLOW[route]}`,
        ["Allow", ALLOW[route]],
      );
      return send(req, res, reply, limitHeaders, route, startedAt);
    }
    if (route === Route.OpenApi) {
      const body = openApiDocument(req);
      return send(req, res, { status: 200, body }, limitHeaders, route, startedAt);
    }
    const query = queryAt === -1 ? "" : url.slice(queryAt + 1);
    if (faults === undefined) {
      return operate(req, res, route, path, query, limitHeaders, false, startedAt);
    }
    const plan = faults.next();
    const proceed = () => {
      if (closed) return resetConnection(req, startedAt);
      if (plan.failure === "reset") return resetConnection(req, startedAt);
      if (plan.failure === "503") {
        const reply = errorReply(
          "fault_injected",
          "injected fault (--fail-rate): the service is unavailable; retry later",
          ["Retry-After", String(FAULT_RETRY_AFTER_SECONDS)],
        );
        return send(req, res, reply, limitHeaders, route, startedAt);
      }
      operate(
        req,
        res,
        route,
        path,
        query,
        limitHeaders,
        plan.failure === "reset-after",
        startedAt,
      );
    };
    if (plan.delayMs > 0) setTimeout(proceed, plan.delayMs).unref();
    else proceed();
  }

  /** 204 to a preflight, with the headers of where the client stands; no quota is used. */
  function answerPreflight(
    req: IncomingMessage,
    res: ServerResponse,
    identity: Identity,
    grants: readonly string[],
    startedAt: number,
  ): void {
    const limit = limiter.check(identity, req.socket.remoteAddress, clock.now(), false);
    const headers = [...limit.headers, ...grants];
    if (draining) headers.push("Connection", "close");
    res.writeHead(204, headers);
    res.end();
    count(204);
    if (logRequests) logRequest(req, 204, startedAt);
  }

  function handleConnect(req: IncomingMessage, socket: Duplex): void {
    // node:http hands the socket over without its error listener.
    socket.on("error", () => socket.destroy());
    const startedAt = timed ? performance.now() : 0;
    const nowMs = clock.now();
    const identity = keyring.identify(req.headers.authorization);
    const limit = limiter.check(identity, req.socket.remoteAddress, nowMs, true);
    const reply =
      limit.refusal ??
      errorReply("method_not_allowed", "CONNECT is not allowed: the fake is not a proxy", [
        "Allow",
        ALL_METHODS,
      ]);
    const headers = [...limit.headers, ...cors.headers(req.headers.origin)];
    writeSocketAnswer(socket, reply, headers, nowMs);
    count(reply.status);
    if (logRequests) logRequest(req, reply.status, startedAt);
    if (journaling) {
      const target = req.url ?? "";
      const plan = typeof identity === "object" ? identity.plan : null;
      journal.begin(req, new JournalEntry(nowMs, "CONNECT", target, target.length, plan));
      journal.finish(req, reply.status, performance.now() - startedAt);
    }
  }

  function handleClientError(error: Error & { code?: string }, socket: Duplex): void {
    const started = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || started?.headersSent === true) {
      socket.destroy();
      return;
    }
    // A request already read (its body is broken) has a known key; garbage has only an address.
    const authorization = started?.req?.headers.authorization;
    const address = (socket as Duplex & { remoteAddress?: string }).remoteAddress;
    const nowMs = clock.now();
    const limit = limiter.check(keyring.identify(authorization), address, nowMs, false);
    const reply = clientErrorReply(error.code);
    const origin = started?.req?.headers.origin;
    writeSocketAnswer(socket, reply, [...limit.headers, ...cors.headers(origin)], nowMs);
    count(reply.status);
    if (logRequests)
      log!.note(`${reply.status} to a malformed request: ${error.code ?? error.message}`);
  }

  function stats(): ServerStats {
    return { byStatus: Object.fromEntries(counts), responses, resets };
  }

  return Object.assign((req: IncomingMessage, res: ServerResponse) => handle(req, res), {
    handleExpectation: (req: IncomingMessage, res: ServerResponse) => handle(req, res, true),
    handleConnect,
    handleClientError,
    stats,
    control,
    drain: () => {
      draining = true;
    },
    close: () => {
      draining = true;
      closed = true;
    },
  });
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
