/**
 * The HTTP layer of the fake, as a node:http request handler that does not listen.
 * Every request goes through the same steps: route, rate limit (per key, or per
 * client address without a valid key), authentication, method, faults, then the
 * operation. Every response carries the rate-limit headers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { SUNSET_DATE } from "../schema/openapi.js";
import type { AccessLog } from "./access-log.js";
import { Keyring, NO_KEY, UNKNOWN_KEY } from "./auth.js";
import { ERROR_CODES, errorJson, type ErrorCode } from "./error-codes.js";
import { FAULT_RETRY_AFTER_SECONDS, FaultInjector, type FaultOptions } from "./faults.js";
import { PLAN_LIMITS, type ApiKeySpec } from "./keys.js";
import { PageCache } from "./page-cache.js";
import { createOpenApiRoute } from "./openapi-route.js";
import { createPet, getPet, listPets } from "./pet-routes.js";
import {
  AddressBuckets,
  DEFAULT_BAN_POLICY,
  peekRequest,
  takeRequest,
  type BanPolicy,
  type RateDecision,
} from "./rate-limit.js";
import { errorReply, type Reply } from "./reply.js";
import type { PetStore } from "./store/types.js";

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export interface AppOptions {
  keys: readonly ApiKeySpec[];
  clock?: Clock;
  /** Access log; none when undefined. */
  log?: AccessLog;
  faults?: FaultOptions;
  ban?: BanPolicy;
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
  /** For `server.on("clientError")`: malformed or too slow requests get an Error body too. */
  handleClientError(error: Error & { code?: string }, socket: Duplex): void;
  stats(): ServerStats;
  /** Shutting down: responses ask clients to close; delayed requests are dropped once `closed`. */
  drain(): void;
  close(): void;
}

/** When `GET /pets/{petId}` was deprecated (RFC 9745 `Deprecation: @<seconds>`): 1 January 2025. */
export const DEPRECATED_AT = Date.UTC(2025, 0, 1) / 1000;
const DEPRECATION_HEADERS = [
  "Deprecation",
  `@${DEPRECATED_AT}`,
  "Sunset",
  new Date(SUNSET_DATE).toUTCString(),
  "Link",
  '</v1/pets>; rel="successor-version"',
];

/** What an unlimited key is told: a limit that never runs out. */
export const UNLIMITED = 2147483647;

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

function rateHeaders(decision: RateDecision): string[] {
  return [
    "X-RateLimit-Limit",
    String(decision.limit),
    "X-RateLimit-Remaining",
    String(decision.remaining),
    "X-RateLimit-Reset",
    String(decision.resetSeconds),
  ];
}

export function createApp(store: PetStore, options: AppOptions): App {
  const clock = options.clock ?? Date;
  const log = options.log;
  const logRequests = log?.logsRequests === true;
  const ban = options.ban ?? DEFAULT_BAN_POLICY;
  const keyring = new Keyring(options.keys);
  const addresses = new AddressBuckets();
  const injector = options.faults ? new FaultInjector(options.faults) : undefined;
  const faults = injector?.inactive === false ? injector : undefined;
  const pages = new PageCache(store);
  const counts = new Map<number, number>();
  let responses = 0;
  let resets = 0;
  let draining = false;
  let closed = false;
  const openApiDocument = createOpenApiRoute();

  // Unlimited keys get the same headers for a whole minute: no work per request.
  let unlimitedHeaders: string[] = [];
  let unlimitedUntilMs = -Infinity;
  function headersForUnlimited(nowMs: number): string[] {
    if (nowMs >= unlimitedUntilMs) {
      unlimitedUntilMs = (Math.floor(nowMs / 60_000) + 1) * 60_000;
      unlimitedHeaders = [
        "X-RateLimit-Limit",
        String(UNLIMITED),
        "X-RateLimit-Remaining",
        String(UNLIMITED),
        "X-RateLimit-Reset",
        String(unlimitedUntilMs / 1000),
      ];
    }
    return unlimitedHeaders;
  }

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
    ];
    if (route === Route.Pet) headers.push(...DEPRECATION_HEADERS);
    if (reply.headers !== undefined) headers.push(...reply.headers);
    if (reply.closeConnection === true || draining) headers.push("Connection", "close");
    // With an injected clock, Date must agree with X-RateLimit-Reset, as on a real service.
    if (clock !== Date) headers.push("Date", new Date(clock.now()).toUTCString());
    res.writeHead(reply.status, headers);
    res.end(reply.body);
    count(reply.status);
    if (logRequests) logRequest(req, reply.status, startedAt);
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
      createPet(store, req).then(
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

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const startedAt = logRequests ? performance.now() : 0;
    const url = req.url ?? "/";
    const queryAt = url.indexOf("?");
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const route = routeOf(path);
    const nowMs = clock.now();
    const identity = keyring.identify(req.headers.authorization);
    let limitHeaders: readonly string[];
    if (typeof identity === "object" && identity.limits === null) {
      limitHeaders = headersForUnlimited(nowMs);
    } else {
      const decision =
        typeof identity === "object"
          ? takeRequest(identity.bucket, identity.limits!, nowMs, ban)
          : takeRequest(
              addresses.get(req.socket.remoteAddress ?? "", nowMs),
              PLAN_LIMITS.free,
              nowMs,
              ban,
            );
      limitHeaders = rateHeaders(decision);
      if (decision.verdict !== "allowed") {
        const reply = rateLimitedReply(decision);
        return send(req, res, reply, limitHeaders, route, startedAt);
      }
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

  function handleClientError(error: Error & { code?: string }, socket: Duplex): void {
    const started = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || started?.headersSent === true) {
      socket.destroy();
      return;
    }
    const code: ErrorCode =
      error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? "request_timeout"
        : error.code === "HPE_HEADER_OVERFLOW"
          ? "headers_too_large"
          : "bad_request";
    const message =
      code === "request_timeout"
        ? "the request did not arrive in time"
        : code === "headers_too_large"
          ? "the request headers are too large"
          : "the request is not valid HTTP/1.1";
    const status = ERROR_CODES[code].status;
    const body = errorJson(code, message);
    const address = (socket as Duplex & { remoteAddress?: string }).remoteAddress ?? "";
    const nowMs = clock.now();
    const limits = rateHeaders(peekRequest(addresses.get(address, nowMs), PLAN_LIMITS.free, nowMs));
    let head = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n`;
    for (let i = 0; i < limits.length; i += 2) head += `${limits[i]}: ${limits[i + 1]}\r\n`;
    socket.end(`${head}\r\n${body}`);
    count(status);
    if (logRequests) log!.note(`${status} ${code}: ${error.code ?? error.message}`);
  }

  function stats(): ServerStats {
    return { byStatus: Object.fromEntries(counts), responses, resets };
  }

  return Object.assign(handle, {
    handleClientError,
    stats,
    drain: () => {
      draining = true;
    },
    close: () => {
      draining = true;
      closed = true;
    },
  });
}

function rateLimitedReply(decision: RateDecision): Reply {
  const retryAfter = ["Retry-After", String(decision.retryAfterSeconds)];
  if (decision.verdict === "banned") {
    return errorReply(
      "banned",
      `too many requests while rate limited: banned for ${decision.retryAfterSeconds} s; wait for Retry-After before retrying`,
      retryAfter,
    );
  }
  return errorReply(
    "rate_limited",
    `rate limit of ${decision.limit} requests exceeded; retry after ${decision.retryAfterSeconds} s`,
    retryAfter,
  );
}

const CHALLENGE = 'Bearer realm="petstore"';
const INVALID_TOKEN_CHALLENGE = 'Bearer realm="petstore", error="invalid_token"';

function unauthorizedReply(identity: typeof NO_KEY | typeof UNKNOWN_KEY): Reply {
  return identity === NO_KEY
    ? errorReply("unauthorized", "an API key is required: send Authorization: Bearer <key>", [
        "WWW-Authenticate",
        CHALLENGE,
      ])
    : errorReply("invalid_key", "the API key is not valid", [
        "WWW-Authenticate",
        INVALID_TOKEN_CHALLENGE,
      ]);
}

/** Client text echoed in a message: bounded, one line. */
function printable(text: string): string {
  const shown = text.length > 100 ? text.slice(0, 100) + "..." : text;
  return JSON.stringify(shown);
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
