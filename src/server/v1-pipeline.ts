/**
 * The API under /v1: every request goes through the same steps, in order: its
 * route, a CORS preflight (answered at once, using no quota), the rate limit
 * (per key, or per client address without a valid key), a request node:http
 * would refuse (no Host, an unmet Expect), authentication, method, faults
 * (--latency, --fail-rate, or set by the control plane), then the operation.
 * Each request is recorded in the request journal (admin/request-journal.ts)
 * from the rate limit on; responder.ts writes and records the answers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FakeClock } from "./admin/clock.js";
import { JournalEntry } from "./admin/request-journal.js";
import type { Identity, Keyring } from "./auth.js";
import type { Cors } from "./cors.js";
import { FAULT_RETRY_AFTER_SECONDS, FaultInjector } from "./faults.js";
import type { FaultSettings } from "./settings/faults.js";
import type { RequestLimiter } from "./limiter.js";
import type { PageCache } from "./page-cache.js";
import { createPet, getPet, listPets } from "./pet-routes.js";
import { errorReply, printable, unauthorizedReply, type Reply } from "./reply.js";
import type { Responder } from "./responder.js";
import type { PetStore } from "./store/types.js";
import { ALLOW, PET_PREFIX, Route, routeOf, underV1 } from "./v1-routes.js";

export interface V1Parts {
  store: PetStore;
  pages: PageCache;
  keyring: Keyring;
  limiter: RequestLimiter;
  cors: Cors;
  clock: FakeClock;
  responder: Responder;
  /** The text of `GET /v1/openapi.json` for this request. */
  openApi(req: IncomingMessage): string;
}

/** One request under /v1, as the app has split its URL. */
export interface V1Request {
  req: IncomingMessage;
  res: ServerResponse;
  url: string;
  /** `url` without its query, which starts after `queryAt` (-1 for none). */
  path: string;
  queryAt: number;
  startedAt: number;
  /** An Expect other than 100-continue, refused with a 417 once the request is counted. */
  unmetExpectation: boolean;
}

export type V1Handler = (request: V1Request) => void;

/** What an admitted request is: its route, its query and the rate-limit headers of its answer. */
interface Admitted {
  route: Route;
  query: string;
  limitHeaders: readonly string[];
}

export interface V1Pipeline {
  handle: V1Handler;
  /** The fault settings, as the control plane reads and changes them. */
  faults: { get(): FaultSettings; set(settings: FaultSettings): void };
  /** Delayed requests still waiting are dropped from now on (their connection reset). */
  close(): void;
}

/** An HTTP/1.1 request without Host: node:http would answer it 400 with no body. */
function lacksHost(req: IncomingMessage): boolean {
  return req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1;
}

function activeFaults(settings: FaultSettings): FaultInjector | undefined {
  const injector = new FaultInjector(settings);
  return injector.inactive ? undefined : injector;
}

export function createV1Pipeline(parts: V1Parts, faultOptions: FaultSettings = {}): V1Pipeline {
  const { store, pages, keyring, limiter, cors, clock, responder } = parts;
  const journal = responder.journal;
  const journaling = responder.journaling;
  let faultSettings = faultOptions;
  let faults = activeFaults(faultSettings);
  let closed = false;

  function operate(request: V1Request, admitted: Admitted, resetAfter: boolean): void {
    const { req, res, path, startedAt } = request;
    const { route, query, limitHeaders } = admitted;
    const finish = (reply: Reply | undefined) => {
      if (reply === undefined) return;
      if (resetAfter) responder.reset(req, startedAt);
      else responder.send(req, res, reply, limitHeaders, route, startedAt);
    };
    if (route === Route.Pets && req.method === "POST") {
      const keep = journaling ? (bytes: Buffer) => journal.keepBody(req, bytes) : undefined;
      createPet(store, req, keep).then(
        (reply) => {
          finish(reply);
        },
        (error: unknown) => finish(responder.failed(req, res, error)),
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
      reply = responder.failed(req, res, error);
    }
    finish(reply);
  }

  const handle: V1Handler = (request) => {
    const { req, res, url, path, queryAt, startedAt, unmetExpectation } = request;
    const route = routeOf(path);
    const identity = keyring.identify(req.headers.authorization);
    if (req.method === "OPTIONS" && !unmetExpectation && underV1(path)) {
      const grants = cors.preflight(req.headers);
      if (grants !== undefined) return answerPreflight(request, identity, grants);
    }
    const nowMs = clock.now();
    const limit = limiter.check(identity, req.socket.remoteAddress, nowMs, true);
    if (journaling) {
      const plan = typeof identity === "object" ? identity.plan : null;
      journal.begin(req, new JournalEntry(nowMs, req.method ?? "-", url, path.length, plan));
    }
    const limitHeaders = limit.headers;
    const send = (reply: Reply) => responder.send(req, res, reply, limitHeaders, route, startedAt);
    if (limit.refusal !== undefined) return send(limit.refusal);
    if (lacksHost(req) || unmetExpectation) {
      const reply = lacksHost(req)
        ? errorReply("bad_request", "an HTTP/1.1 request must have a Host header")
        : errorReply(
            "expectation_failed",
            `the expectation ${printable(req.headers.expect ?? "")} cannot be met; only 100-continue is supported`,
          );
      return send({ ...reply, closeConnection: true });
    }
    if (typeof identity !== "object" && route !== Route.OpenApi) {
      return send(unauthorizedReply(identity));
    }
    if (route === Route.None) {
      return send(errorReply("not_found", `no route for ${printable(path)}; the API is under /v1`));
    }
    const method = req.method;
    if (!(method === "GET" || method === "HEAD" || (method === "POST" && route === Route.Pets))) {
      const reply = errorReply(
        "method_not_allowed",
        `${printable(method ?? "")} is not allowed here; allowed: ${ALLOW[route]}`,
        ["Allow", ALLOW[route]],
      );
      return send(reply);
    }
    if (route === Route.OpenApi) return send({ status: 200, body: parts.openApi(req) });
    const query = queryAt === -1 ? "" : url.slice(queryAt + 1);
    const admitted: Admitted = { route, query, limitHeaders };
    if (faults === undefined) return operate(request, admitted, false);
    const plan = faults.next();
    const proceed = () => {
      if (closed) return responder.reset(req, startedAt);
      if (plan.failure === "reset") return responder.reset(req, startedAt);
      if (plan.failure === "503") {
        const reply = errorReply(
          "fault_injected",
          "injected fault (--fail-rate): the service is unavailable; retry later",
          ["Retry-After", String(FAULT_RETRY_AFTER_SECONDS)],
        );
        return send(reply);
      }
      const resetAfter = plan.failure === "reset-after";
      operate(request, admitted, resetAfter);
    };
    if (plan.delayMs > 0) setTimeout(proceed, plan.delayMs).unref();
    else proceed();
  };

  /** 204 to a preflight, with the headers of where the client stands; no quota is used. */
  function answerPreflight(request: V1Request, identity: Identity, grants: readonly string[]) {
    const { req, res, startedAt } = request;
    const limit = limiter.check(identity, req.socket.remoteAddress, clock.now(), false);
    responder.sendNoContent(req, res, [...limit.headers, ...grants], startedAt);
  }

  return {
    handle,
    faults: {
      get: () => faultSettings,
      set: (settings) => {
        faults = activeFaults(settings);
        faultSettings = settings;
      },
    },
    close: () => {
      closed = true;
    },
  };
}
