/**
 * The fake's request handler (a node:http listener that does not listen).
 * `/__admin/*` is the control plane (admin/), `GET /` and `/__home/*` the home
 * page (home/); everything else is the API under /v1, whose steps run in the
 * order docs/serve.md gives: route, CORS preflight (answered at once, using no
 * quota), rate limit (per key, or per client address without a valid key), what
 * node:http would refuse itself (no Host, an unmet Expect), authentication,
 * 404/405, faults, the operation. A /v1 request is an `Exchange` from there on:
 * `answer()` is the one place its answer, or its dropped connection, is
 * written, counted, logged and journaled. CONNECT and requests
 * node:http cannot parse never reach the handler: they are answered on the socket.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { deprecationHeaderValues, SUCCESSOR_PATH, SUNSET_DATE } from "../schema/deprecation.js";
import type { AccessLog } from "./access-log.js";
import { adminAccess } from "./admin/access.js";
import { FakeClock, isoTime } from "./admin/clock.js";
import { preferredAnswer, scriptedReply, ScriptedAnswers } from "./admin/next.js";
import { RequestJournal, type JournalEntry } from "./admin/request-journal.js";
import { createAdminRoutes, isAdminPath, type Fake } from "./admin/routes.js";
import { createCors } from "./cors.js";
import { VerdictBook, type Observed } from "./verdict.js";
import { faultInjector } from "./faults.js";
import { createHomeRoute, isHomePath } from "./home/route.js";
import { Keyring, unauthorizedReply } from "./auth.js";
import { createOpenApiRoute } from "./openapi-route.js";
import { createPet, createPetList, getPet } from "./pet-routes.js";
import { errorReply, methodNotAllowed, NO_CONTENT, printable, type Reply } from "./reply.js";
import { Responder } from "./responder.js";
import type { ServerOptions } from "./options.js";
import type { PetStore } from "./store/memory.js";

/**
 * The server's options, as the options schema fills them in, and its access log
 * (none when undefined). Without `host`, the control plane is off.
 */
export type AppOptions = Omit<ServerOptions, "host" | "log"> & { host?: string; log?: AccessLog };

/** One /v1 request being answered: what the verdict observes of it once it is finished. */
interface Exchange extends Observed {
  req: IncomingMessage;
  res: ServerResponse;
  startedAt: number;
  /** Headers every answer to it carries besides CORS (rate limits, deprecation). */
  headers: readonly string[];
  /** Its entry in the request journal; none with the journal off. */
  entry?: JournalEntry;
}

type Route = "pets" | "pet" | "openapi" | "none";
const PET_PREFIX = "/v1/pets/";
/** A scripted drop (POST /__admin/next) as the fault it is. */
const DROPS = { before: "reset", after: "reset-after" } as const;

function routeOf(path: string): Route {
  if (path === "/v1/pets") return "pets";
  if (path === "/v1/openapi.json") return "openapi";
  if (!path.startsWith(PET_PREFIX) || path.length === PET_PREFIX.length) return "none";
  return path.includes("/", PET_PREFIX.length) ? "none" : "pet";
}

export function createApp(store: PetStore, options: AppOptions) {
  const clock = new FakeClock(options.clock);
  const keyring = new Keyring(options.keys, options.ban);
  const cors = createCors(options.cors);
  const verdict = new VerdictBook();
  const journal = new RequestJournal(options.journalSize);
  const responder = new Responder(clock, options.log);
  const listPets = createPetList(store);
  const sunset = options.sunset === "now" ? clock.now() : options.sunset;
  const sunsetMs = sunset === undefined ? undefined : new Date(sunset).getTime();
  const sunsetAtMs = sunsetMs ?? Date.parse(SUNSET_DATE);
  const openApi = createOpenApiRoute(sunsetMs);
  /** Sent on every answer of `GET /v1/pets/{petId}`. */
  const DEPRECATION_HEADERS = Object.entries(deprecationHeaderValues(sunsetMs)).flat();
  const gone = errorReply(
    "gone",
    `GET /v1/pets/{petId} was removed on ${isoTime(sunsetAtMs)}; use GET ${SUCCESSOR_PATH} instead (filter it with status)`,
  );
  let faults = faultInjector(options.faults);
  let closed = false;
  const fake: Fake = {
    store,
    keyring,
    clock,
    journal,
    next: new ScriptedAnswers(),
    verdict,
    startedAt: performance.now(),
    faults: options.faults,
    setFaults(settings) {
      faults = faultInjector(settings);
      fake.faults = settings;
    },
  };
  const access = adminAccess(options.host ?? "0.0.0.0", options.adminToken);
  const admin = createAdminRoutes(fake, access, responder);
  const home = createHomeRoute({ list: listPets, openApi, fake, access });

  /**
   * Writes the answer to a /v1 request, or closes its connection on purpose without one
   * (`dropped`, or no `reply`: a reset fault, shutdown; `reply` is what it would have had):
   * the one place every /v1 request ends.
   */
  function answer(exchange: Exchange, reply?: Reply, dropped = false): void {
    const { req, res, headers, startedAt, entry } = exchange;
    let status: number | null = null;
    if (dropped || reply === undefined) req.socket.destroy();
    else {
      exchange.delivered = !req.socket.destroyed;
      responder.write(res, reply, headers, cors.headers(req.headers.origin));
      status = reply.status;
    }
    responder.answered(req, status ?? "reset", startedAt);
    if (entry !== undefined) journal.record(entry, status, performance.now() - startedAt);
    const retryAfter = reply?.headers?.indexOf("Retry-After") ?? -1;
    if (retryAfter !== -1) exchange.retryAfterSeconds = Number(reply!.headers![retryAfter + 1]);
    if (reply?.status === 201) exchange.petId = /"id":(-?[0-9]+)/.exec(String(reply.body))?.[1];
    exchange.status = status;
    exchange.id = entry?.id ?? null;
    exchange.leftMs = clock.now();
    verdict.observe(exchange);
  }

  /** The operation; `resetAfter`: its connection is closed instead of answered. */
  function operate(exchange: Exchange, route: Route, query: string, resetAfter: boolean) {
    const { req, res, entry } = exchange;
    const end = (reply: Reply | undefined) => {
      if (reply !== undefined) answer(exchange, reply, resetAfter);
    };
    const failed = (error: unknown) => end(responder.failed(`${req.method} request`, res, error));
    try {
      if (route === "pet") return end(getPet(store, exchange.path.slice(PET_PREFIX.length)));
      if (req.method !== "POST") return end(listPets(query));
      const keep = (bytes: Buffer) => {
        exchange.body = bytes;
        if (entry !== undefined) journal.keepBody(entry, bytes);
      };
      createPet(store, req, keep).then(end, failed);
    } catch (error) {
      failed(error);
    }
  }

  function handle(req: IncomingMessage, res: ServerResponse, unmetExpectation: boolean): void {
    const startedAt = performance.now();
    const url = req.url ?? "/";
    const queryAt = url.indexOf("?");
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const query = queryAt === -1 ? "" : url.slice(queryAt + 1);
    if (isAdminPath(path)) return admin(req, res, path, query);
    const identity = keyring.identify(req.headers.authorization, req.socket);
    const address = req.socket.remoteAddress;
    // The home page (GET /, /__home/*) is outside the API: no key, no quota used.
    if (isHomePath(path)) {
      const limit = keyring.limit(identity, address, clock.now(), false);
      return responder.answered(req, home(req, res, path, limit.headers)!, startedAt);
    }
    // A /v1 request starts here.
    if (req.method === "OPTIONS" && !unmetExpectation && /^\/v1(?:\/|$)/.test(path)) {
      const grants = cors.preflight(req.headers);
      if (grants !== undefined) {
        const limit = keyring.limit(identity, address, clock.now(), false);
        responder.write(res, NO_CONTENT, limit.headers, grants);
        return responder.answered(req, 204, startedAt);
      }
    }
    const route = routeOf(path);
    const nowMs = clock.now();
    const method = req.method ?? "-";
    const account = typeof identity === "object" ? identity : undefined;
    // Banned on arrival: before this request is counted, which may ban it.
    const banned = account?.limits != null && account.bucket.bannedUntilMs > nowMs;
    const limit = keyring.limit(identity, address, nowMs, true);
    const exchange: Exchange = {
      req,
      res,
      startedAt,
      headers: route === "pet" ? [...limit.headers, ...DEPRECATION_HEADERS] : limit.headers,
      entry: journal.entry(nowMs, method, url, path.length, account?.plan ?? null),
      account,
      method,
      path,
      arrivedMs: nowMs,
      leftMs: nowMs,
      seq: verdict.stamp(),
      id: null,
      status: null,
      delivered: false,
      banned,
      retryAfterSeconds: undefined,
      petId: undefined,
      getPet: route === "pet" && (method === "GET" || method === "HEAD"),
    };
    if (limit.refusal !== undefined) return answer(exchange, limit.refusal);
    // What node:http would answer 400 or 417 with no body, then authentication, 404, 405.
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
      const reply = errorReply("bad_request", "an HTTP/1.1 request must have a Host header");
      return answer(exchange, { ...reply, closeConnection: true });
    }
    if (unmetExpectation) {
      const expectation = printable(req.headers.expect ?? "");
      const message = `the expectation ${expectation} cannot be met; only 100-continue is supported`;
      const reply = errorReply("expectation_failed", message);
      return answer(exchange, { ...reply, closeConnection: true });
    }
    if (typeof identity !== "object" && route !== "openapi") {
      return answer(exchange, unauthorizedReply(identity));
    }
    if (route === "none") {
      const message = `no route for ${printable(path)}; the API is under /v1`;
      return answer(exchange, errorReply("not_found", message));
    }
    const allowed = route === "pets" ? "GET, HEAD, POST" : "GET, HEAD";
    if (!(method === "GET" || method === "HEAD" || (method === "POST" && route === "pets"))) {
      return answer(exchange, methodNotAllowed(method, allowed));
    }
    if (route === "openapi") return answer(exchange, { status: 200, body: openApi(req) });
    if (route === "pet" && nowMs >= sunsetAtMs) return answer(exchange, gone);
    const scripted =
      fake.next.take(method, path, account!.key) ??
      (options.preferCode === true ? preferredAnswer(String(req.headers.prefer)) : undefined);
    // A scripted status (POST /__admin/next, or Prefer: code=S) in place of the operation.
    if (scripted?.status !== undefined) {
      const { status, retryAfterSeconds = 1 } = scripted;
      if (status === 429) {
        const limited = keyring.scripted429(account!, clock.now(), retryAfterSeconds);
        exchange.headers = [...limited.headers, ...(route === "pet" ? DEPRECATION_HEADERS : [])];
        return answer(exchange, limited.refusal!);
      }
      return answer(exchange, scriptedReply(status, retryAfterSeconds, route === "pet"));
    }
    // A scripted drop or delay, else the faults' plan: a delay, then maybe a failure.
    const plan =
      scripted === undefined
        ? faults?.()
        : { delayMs: scripted.delayMs ?? 0, failure: scripted.drop && DROPS[scripted.drop] };
    if (plan === undefined) return operate(exchange, route, query, false);
    const proceed = () => {
      if (closed || plan.failure === "reset") return answer(exchange);
      if (plan.failure !== "503")
        return operate(exchange, route, query, plan.failure === "reset-after");
      const message = "injected fault (--fail-rate): the service is unavailable; retry later";
      answer(exchange, errorReply("fault_injected", message, ["Retry-After", "1"]));
    };
    if (plan.delayMs > 0) setTimeout(proceed, plan.delayMs).unref();
    else proceed();
  }

  /**
   * Answers on the socket a request node:http does not hand to the handler;
   * `counted`: the request counts toward its rate limit, and a 429 answers it.
   */
  function onSocket(socket: Duplex, reply: Reply, counted: boolean, headers?: IncomingHttpHeaders) {
    const nowMs = clock.now();
    const identity = keyring.identify(headers?.authorization);
    const peer = socket as Duplex & { remoteAddress?: string };
    const limit = keyring.limit(identity, peer.remoteAddress, nowMs, counted);
    const answer = (counted && limit.refusal) || reply;
    const all = [...limit.headers, ...cors.headers(headers?.origin)];
    responder.writeOnSocket(socket, answer, all, nowMs);
    return answer.status;
  }

  /** For `server.on("connect")`: CONNECT gets a 405 Error body; the fake is not a proxy. */
  function handleConnect(req: IncomingMessage, socket: Duplex): void {
    // node:http hands the socket over without its error listener.
    socket.on("error", () => socket.destroy());
    const startedAt = performance.now();
    const message = "CONNECT is not allowed: the fake is not a proxy";
    const refusal = errorReply("method_not_allowed", message, ["Allow", "GET, HEAD, POST"]);
    responder.answered(req, onSocket(socket, refusal, true, req.headers), startedAt);
  }

  /** For `server.on("clientError")`: malformed or too slow requests get an Error body too. */
  function handleClientError(error: Error & { code?: string }, socket: Duplex): void {
    const started = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || started?.headersSent === true) {
      socket.destroy();
      return;
    }
    const reply =
      error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? errorReply("request_timeout", "the request did not arrive in time")
        : error.code === "HPE_HEADER_OVERFLOW"
          ? errorReply("headers_too_large", "the request headers are too large")
          : errorReply("bad_request", "the request is not valid HTTP/1.1");
    // A request already read (its body is broken) has a known key; garbage has only an address.
    const status = onSocket(socket, reply, false, started?.req?.headers);
    responder.count(status);
    if (options.log?.logsRequests === true)
      options.log.note(`${status} to a malformed request: ${error.code ?? error.message}`);
  }

  return Object.assign((req: IncomingMessage, res: ServerResponse) => handle(req, res, false), {
    /** For `server.on("checkExpectation")`: an Expect other than 100-continue gets a 417. */
    handleExpectation: (req: IncomingMessage, res: ServerResponse) => handle(req, res, true),
    handleConnect,
    handleClientError,
    stats: () => responder.stats(),
    /** The server's parts, as the control plane's operations act on them (the library's too). */
    fake,
    /** Shutting down: answers ask clients to close the connection. */
    drain: () => void (responder.draining = true),
    /** Delayed requests still waiting are dropped from now on (their connection reset). */
    close: () => {
      responder.draining = true;
      closed = true;
    },
  });
}
