/**
 * The HTTP layer of the fake, as a node:http request handler that does not listen,
 * assembled from its parts. `/__admin/*` is the control plane (admin/) and
 * `GET /`, `/__home/*` the home page (home/): requests go there before any step
 * of the API's. Everything else is the API, whose steps (route, CORS preflight,
 * rate limit, node:http's refusals, authentication, method, faults, operation)
 * are v1-pipeline.ts's; CONNECT and malformed requests, which node:http answers
 * on the socket, are socket-handlers.ts's. Every response carries the rate-limit
 * and CORS headers, and every one is counted and logged (responder.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AccessLog } from "./access-log.js";
import { adminAccess, refusal } from "./admin/access.js";
import { FakeClock, type Clock } from "./admin/clock.js";
import { ControlPlane } from "./admin/control-plane.js";
import { DEFAULT_JOURNAL_SIZE, RequestJournal } from "./admin/request-journal.js";
import { createAdminRoutes, isAdminPath } from "./admin/routes.js";
import { Keyring } from "./auth.js";
import { createCors, type CorsOption } from "./cors.js";
import type { FaultSettings } from "./settings/faults.js";
import { createHomeRoute, isHomePath } from "./home/route.js";
import type { ApiKeySpec } from "./keys.js";
import { RequestLimiter } from "./limiter.js";
import { PageCache } from "./page-cache.js";
import type { Reply } from "./reply.js";
import { createOpenApiRoute } from "./openapi-route.js";
import { listPets } from "./pet-routes.js";
import { DEFAULT_BAN_POLICY, type BanPolicy } from "./rate-limit.js";
import { Responder, type ServerStats } from "./responder.js";
import { createSocketHandlers, type SocketHandlers } from "./socket-handlers.js";
import type { PetStore } from "./store/types.js";
import { createV1Pipeline } from "./v1-pipeline.js";

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

export interface App extends SocketHandlers {
  (req: IncomingMessage, res: ServerResponse): void;
  /** For `server.on("checkExpectation")`: an Expect other than 100-continue gets a 417 Error body. */
  handleExpectation(req: IncomingMessage, res: ServerResponse): void;
  stats(): ServerStats;
  /** The control plane's operations, for the library's RunningServer. */
  control: ControlPlane;
  /** Shutting down: responses ask clients to close; delayed requests are dropped once `closed`. */
  drain(): void;
  close(): void;
}

/**
 * The home page's keys (`GET /__home/keys`): the entries of `GET /__admin/keys`
 * with each key in full. Both lists come from the same keys, read in one go.
 */
function keysInFull(control: ControlPlane): Reply {
  const specs = control.keys();
  const keys = control.keyEntries().map((entry, i) => ({ ...entry, key: specs[i]!.key }));
  return { status: 200, body: JSON.stringify({ keys }) };
}

export function createApp(store: PetStore, options: AppOptions): App {
  const clock = new FakeClock(options.clock);
  const log = options.log;
  const keyring = new Keyring(options.keys);
  const cors = createCors(options.cors);
  const limiter = new RequestLimiter(options.ban ?? DEFAULT_BAN_POLICY);
  const journal = new RequestJournal(options.journalSize ?? DEFAULT_JOURNAL_SIZE);
  const responder = new Responder(cors, clock, journal, log);
  const pages = new PageCache(store);
  const openApi = createOpenApiRoute();
  const v1 = createV1Pipeline(
    { store, pages, keyring, limiter, cors, clock, responder, openApi },
    options.faults,
  );
  const control = new ControlPlane({
    store,
    keys: options.keys,
    keyring,
    limiter,
    clock,
    journal,
    faults: v1.faults,
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

  function handle(req: IncomingMessage, res: ServerResponse, unmetExpectation = false): void {
    const startedAt = responder.startedAt();
    const url = req.url ?? "/";
    const queryAt = url.indexOf("?");
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    // The home page (GET /, /__home/*) is outside the API: no key, no quota used.
    if (isHomePath(path)) {
      const identity = keyring.identify(req.headers.authorization);
      const limit = limiter.check(identity, req.socket.remoteAddress, clock.now(), false);
      const status = home(req, res, path, limit.headers)!;
      responder.answered(req, status, startedAt);
      return;
    }
    if (isAdminPath(path)) {
      return admin(req, res, path, queryAt === -1 ? "" : url.slice(queryAt + 1));
    }
    v1.handle({ req, res, url, path, queryAt, startedAt, unmetExpectation });
  }

  return Object.assign((req: IncomingMessage, res: ServerResponse) => handle(req, res), {
    handleExpectation: (req: IncomingMessage, res: ServerResponse) => handle(req, res, true),
    ...createSocketHandlers({ keyring, limiter, cors, clock, responder }),
    stats: () => responder.stats(),
    control,
    drain: () => {
      responder.draining = true;
    },
    close: () => {
      responder.draining = true;
      v1.close();
    },
  });
}
