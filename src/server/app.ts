/**
 * The fake's request handler (a node:http listener that does not listen).
 * `/__admin/*` is the control plane (admin/), `GET /` and `/__home/*` the home
 * page (home/); everything else is the API under /v1, whose steps run in the
 * order docs/serve.md gives: route, CORS preflight (answered at once, using no
 * quota), rate limit (per key, or per client address without a valid key), what
 * node:http would refuse itself (no Host, an unmet Expect), authentication,
 * 404/405, faults, the operation. CONNECT and requests node:http cannot parse
 * never reach the handler: they are answered on the socket. responder.ts writes,
 * counts, logs and journals every answer.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { deprecationHeaderValues } from "../schema/deprecation.js";
import type { AccessLog } from "./access-log.js";
import { adminAccess, refusal } from "./admin/access.js";
import { FakeClock, type Clock } from "./admin/clock.js";
import { ControlPlane } from "./admin/control-plane.js";
import { DEFAULT_JOURNAL_SIZE, JournalEntry, RequestJournal } from "./admin/request-journal.js";
import { createAdminRoutes, isAdminPath } from "./admin/routes.js";
import { Keyring, unauthorizedReply, type Identity } from "./auth.js";
import { createCors, type CorsOption } from "./cors.js";
import { faultInjector, type FaultSettings } from "./faults.js";
import { createHomeRoute, isHomePath } from "./home/route.js";
import type { ApiKeySpec } from "./keys.js";
import { createOpenApiRoute } from "./openapi-route.js";
import { PageCache } from "./page-cache.js";
import { createPet, getPet, listPets } from "./pet-routes.js";
import { DEFAULT_BAN_POLICY, RequestLimiter, type BanPolicy } from "./rate-limit.js";
import { errorReply, printable, type Reply } from "./reply.js";
import { Responder, type ServerStats } from "./responder.js";
import type { PetStore } from "./store/types.js";

export type { Clock } from "./admin/clock.js";
export type { ServerStats } from "./responder.js";

export interface AppOptions {
  keys: readonly ApiKeySpec[];
  clock?: Clock;
  /** Access log; none when undefined. */
  log?: AccessLog;
  faults?: FaultSettings;
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

export type App = ReturnType<typeof createApp>;

const enum Route {
  None,
  Pets,
  Pet,
  OpenApi,
}
const PET_PREFIX = "/v1/pets/";
/** The `Allow` header of a 405, by route. */
const ALLOW = ["", "GET, HEAD, POST", "GET, HEAD", "GET, HEAD"];

function routeOf(path: string): Route {
  if (path === "/v1/pets") return Route.Pets;
  if (path.startsWith(PET_PREFIX)) {
    return path.length > PET_PREFIX.length && path.indexOf("/", PET_PREFIX.length) === -1
      ? Route.Pet
      : Route.None;
  }
  return path === "/v1/openapi.json" ? Route.OpenApi : Route.None;
}

/** Sent on every answer of `GET /v1/pets/{petId}`. */
const DEPRECATION_HEADERS = Object.entries(deprecationHeaderValues()).flat();
/** Retry-After of an injected 503, in seconds. */
const FAULT_RETRY_AFTER = "1";

const planOf = (identity: Identity) => (typeof identity === "object" ? identity.plan : null);

/**
 * The refusals between the rate limit and the operation, in their order: what
 * node:http would answer 400 or 417 with no body, authentication, 404, 405.
 */
function refusalOf(
  req: IncomingMessage,
  identity: Identity,
  route: Route,
  path: string,
  unmetExpectation: boolean,
): Reply | undefined {
  if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
    const reply = errorReply("bad_request", "an HTTP/1.1 request must have a Host header");
    return { ...reply, closeConnection: true };
  }
  if (unmetExpectation) {
    const reply = errorReply(
      "expectation_failed",
      `the expectation ${printable(req.headers.expect ?? "")} cannot be met; only 100-continue is supported`,
    );
    return { ...reply, closeConnection: true };
  }
  if (typeof identity !== "object" && route !== Route.OpenApi) return unauthorizedReply(identity);
  if (route === Route.None) {
    return errorReply("not_found", `no route for ${printable(path)}; the API is under /v1`);
  }
  const method = req.method;
  if (!(method === "GET" || method === "HEAD" || (method === "POST" && route === Route.Pets))) {
    return errorReply(
      "method_not_allowed",
      `${printable(method ?? "")} is not allowed here; allowed: ${ALLOW[route]}`,
      ["Allow", ALLOW[route]!],
    );
  }
  return undefined;
}

/** The answer to a `clientError`, by Node's error code. */
function clientErrorReply(code: string | undefined): Reply {
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") {
    return errorReply("request_timeout", "the request did not arrive in time");
  }
  if (code === "HPE_HEADER_OVERFLOW") {
    return errorReply("headers_too_large", "the request headers are too large");
  }
  return errorReply("bad_request", "the request is not valid HTTP/1.1");
}

/** The home page's keys: the entries of GET /__admin/keys with each key in full. */
function keysInFull(control: ControlPlane): Reply {
  const specs = control.keys();
  const keys = control.keyEntries().map((entry, i) => ({ ...entry, key: specs[i]!.key }));
  return { status: 200, body: JSON.stringify({ keys }) };
}

export function createApp(store: PetStore, options: AppOptions) {
  const clock = new FakeClock(options.clock);
  const log = options.log;
  const keyring = new Keyring(options.keys);
  const cors = createCors(options.cors);
  const limiter = new RequestLimiter(options.ban ?? DEFAULT_BAN_POLICY);
  const journal = new RequestJournal(options.journalSize ?? DEFAULT_JOURNAL_SIZE);
  const responder = new Responder(cors, clock, journal, log);
  const journaling = responder.journaling;
  const pages = new PageCache(store);
  const openApi = createOpenApiRoute();
  let faultSettings = options.faults ?? {};
  let faults = faultInjector(faultSettings);
  let closed = false;
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
        faults = faultInjector(settings);
        faultSettings = settings;
      },
    },
  });
  const access = adminAccess(options.admin?.host ?? "0.0.0.0", options.admin?.token);
  const admin = createAdminRoutes(control, access, {
    clock,
    count: (status) => responder.count(status),
    note: (message) => log?.note(message),
  });
  const home = createHomeRoute({
    list: (query) => listPets(pages, query),
    openApi,
    keys: (req) => refusal(access, req) ?? keysInFull(control),
    health: () => control.health(),
    now: () => clock.now(),
  });

  function handle(req: IncomingMessage, res: ServerResponse, unmetExpectation: boolean): void {
    const startedAt = responder.startedAt();
    const url = req.url ?? "/";
    const queryAt = url.indexOf("?");
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const query = queryAt === -1 ? "" : url.slice(queryAt + 1);
    if (isAdminPath(path)) return admin(req, res, path, query);
    const identity = keyring.identify(req.headers.authorization);
    const address = req.socket.remoteAddress;
    // The home page (GET /, /__home/*) is outside the API: no key, no quota used.
    if (isHomePath(path)) {
      const limit = limiter.check(identity, address, clock.now(), false);
      return responder.answered(req, home(req, res, path, limit.headers)!, startedAt);
    }
    if (req.method === "OPTIONS" && !unmetExpectation && /^\/v1(?:\/|$)/.test(path)) {
      const grants = cors.preflight(req.headers);
      if (grants !== undefined) {
        const limit = limiter.check(identity, address, clock.now(), false);
        return responder.sendNoContent(req, res, [...limit.headers, ...grants], startedAt);
      }
    }
    const route = routeOf(path);
    const nowMs = clock.now();
    const limit = limiter.check(identity, address, nowMs, true);
    if (journaling) {
      const entry = new JournalEntry(nowMs, req.method ?? "-", url, path.length, planOf(identity));
      journal.begin(req, entry);
    }
    const headers =
      route === Route.Pet ? [...limit.headers, ...DEPRECATION_HEADERS] : limit.headers;
    const send = (reply: Reply) => responder.send(req, res, reply, headers, startedAt);
    const refused = limit.refusal ?? refusalOf(req, identity, route, path, unmetExpectation);
    if (refused !== undefined) return send(refused);
    if (route === Route.OpenApi) return send({ status: 200, body: openApi(req) });

    /** The operation; `resetAfter`: its connection is closed instead of answered. */
    const operate = (resetAfter: boolean) => {
      const finish = (reply: Reply | undefined) => {
        if (reply === undefined) return;
        if (resetAfter) responder.reset(req, startedAt);
        else send(reply);
      };
      if (route === Route.Pets && req.method === "POST") {
        const keep = journaling ? (bytes: Buffer) => journal.keepBody(req, bytes) : undefined;
        createPet(store, req, keep).then(finish, (error: unknown) => {
          finish(responder.failed(req, res, error));
        });
        return;
      }
      let reply: Reply | undefined;
      try {
        reply =
          route === Route.Pets
            ? listPets(pages, query)
            : getPet(store, path.slice(PET_PREFIX.length));
      } catch (error) {
        reply = responder.failed(req, res, error);
      }
      finish(reply);
    };
    if (faults === undefined) return operate(false);
    const plan = faults();
    const proceed = () => {
      if (closed || plan.failure === "reset") return responder.reset(req, startedAt);
      if (plan.failure !== "503") return operate(plan.failure === "reset-after");
      const message = "injected fault (--fail-rate): the service is unavailable; retry later";
      send(errorReply("fault_injected", message, ["Retry-After", FAULT_RETRY_AFTER]));
    };
    if (plan.delayMs > 0) setTimeout(proceed, plan.delayMs).unref();
    else proceed();
  }

  /** For `server.on("connect")`: CONNECT gets a 405 Error body; the fake is not a proxy. */
  function handleConnect(req: IncomingMessage, socket: Duplex): void {
    // node:http hands the socket over without its error listener.
    socket.on("error", () => socket.destroy());
    const startedAt = responder.startedAt();
    const nowMs = clock.now();
    const identity = keyring.identify(req.headers.authorization);
    const limit = limiter.check(identity, req.socket.remoteAddress, nowMs, true);
    const reply =
      limit.refusal ??
      errorReply("method_not_allowed", "CONNECT is not allowed: the fake is not a proxy", [
        "Allow",
        ALLOW[Route.Pets]!,
      ]);
    responder.sendOnSocket(socket, reply, limit.headers, req.headers.origin, nowMs);
    responder.answered(req, reply.status, startedAt);
    if (journaling) {
      const target = req.url ?? "";
      const entry = new JournalEntry(nowMs, "CONNECT", target, target.length, planOf(identity));
      journal.begin(req, entry);
      journal.finish(req, reply.status, performance.now() - startedAt);
    }
  }

  /** For `server.on("clientError")`: malformed or too slow requests get an Error body too. */
  function handleClientError(error: Error & { code?: string }, socket: Duplex): void {
    const started = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || started?.headersSent === true) {
      socket.destroy();
      return;
    }
    // A request already read (its body is broken) has a known key; garbage has only an address.
    const headers = started?.req?.headers;
    const address = (socket as Duplex & { remoteAddress?: string }).remoteAddress;
    const nowMs = clock.now();
    const limit = limiter.check(keyring.identify(headers?.authorization), address, nowMs, false);
    const reply = clientErrorReply(error.code);
    responder.sendOnSocket(socket, reply, limit.headers, headers?.origin, nowMs);
    responder.answeredMalformed(reply.status, error.code ?? error.message);
  }

  return Object.assign((req: IncomingMessage, res: ServerResponse) => handle(req, res, false), {
    /** For `server.on("checkExpectation")`: an Expect other than 100-continue gets a 417. */
    handleExpectation: (req: IncomingMessage, res: ServerResponse) => handle(req, res, true),
    handleConnect,
    handleClientError,
    stats: (): ServerStats => responder.stats(),
    /** The control plane's operations, for the library's RunningServer. */
    control,
    /** Shutting down: answers ask clients to close the connection. */
    drain: () => {
      responder.draining = true;
    },
    /** Delayed requests still waiting are dropped from now on (their connection reset). */
    close: () => {
      responder.draining = true;
      closed = true;
    },
  });
}
