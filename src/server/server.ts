/**
 * `startServer`: the fake on a real port, for `petstore serve` and for test
 * suites. With `file` it serves a JSON file through the file store; without, a
 * memory store (of `pets`, or of `seed` demo pets). A start checks its options
 * (options.ts), opens the store, then listens with node:http(s), whose timeouts
 * and refusals are set here, and undoes what it made when a step fails. The
 * RunningServer it gives back runs the control plane's own handlers
 * (admin/routes.ts), its arguments checked by the same schemas.
 */
import { createServer, type Server } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import * as z from "zod/mini";
import { AccessLog } from "./access-log.js";
import { NextRuleBody, type NextRule } from "./admin/next.js";
import { JOURNAL_FILTER, type RecordedRequest } from "./admin/request-journal.js";
import {
  adminOperation,
  ClockBody,
  type AdminReply,
  type AdminRequest,
  type KeyEntry,
} from "./admin/routes.js";
import { createApp } from "./app.js";
import { ServerConfigError } from "./config-error.js";
import { capConnections } from "./connection-cap.js";
import { FaultOption, type FaultOptions } from "./faults.js";
import { KeyInput, type ApiKeySpec } from "./keys.js";
import { parse, START_OPTIONS, type ServerOptions, type StartServerOptions } from "./options.js";
import { createMemoryStore, type PetStore } from "./store/memory.js";
import { demoPets } from "./demo-pets.js";
import { removeCreated } from "./tls/local-ca.js";
import { noteHandshakeFailures, setUpTls, type TlsSetup } from "./tls/server-tls.js";

export type RunningServer = Awaited<ReturnType<typeof startServer>>;

/** Filters of `requests()`, as the query of `GET /__admin/requests`. */
export interface RequestFilter {
  /** GET, POST... (any case). */
  method?: string;
  /** Exact, or a prefix when it ends in `*`. */
  path?: string;
  /** 404, or a class: "4xx". */
  status?: number | string;
  /** At or after: a Date, Unix milliseconds or an ISO 8601 string (the fake's clock). */
  since?: Date | number | string;
  /** Only requests with a larger id (ids increase by one per request). */
  after?: number;
  /** At most this many, the oldest first. */
  limit?: number;
}

/** A filter object as the query's text. */
const filterText = (filter: unknown) =>
  typeof filter !== "object" || filter === null
    ? filter
    : Object.fromEntries(
        Object.entries(filter)
          .filter(([, value]) => value !== undefined)
          .map(([name, value]) => [
            name,
            value instanceof Date ? String(value.getTime()) : String(value),
          ]),
      );

export async function startServer(startOptions: StartServerOptions = {}) {
  const options = parse(START_OPTIONS, startOptions, "startServer");
  const { host, timeouts } = options;
  /** The data file the local CA is kept next to. */
  const caNextTo = options.store === undefined ? options.file : undefined;
  const log = new AccessLog(options.log ?? process.stderr, options.quiet !== true);
  const store: PetStore & { abandon?(): Promise<void> } =
    options.store ??
    (await openStore(options, log).catch((error: unknown) => {
      log.flush();
      throw error;
    }));
  /** Closes the store of a start that failed; one opened here removes what it created. */
  const abandon = () =>
    options.store === undefined && store.abandon !== undefined ? store.abandon() : store.close();

  let tls: TlsSetup | undefined;
  let app: ReturnType<typeof createApp>;
  let server: Server | HttpsServer;
  let capStats: ReturnType<typeof capConnections>;
  try {
    // After the store: its lock keeps two serves of one file from writing one CA.
    if (options.tls !== undefined && options.tls !== false) {
      tls = await setUpTls(options.tls, {
        file: caNextTo,
        host,
        now: new Date(),
        note: (line) => log.note(line),
      });
    }
    app = createApp(store, { ...options, log, admin: { host, token: options.adminToken } });
    const serverOptions = {
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs,
      // The app answers a missing Host itself, with an Error body and the rate-limit headers.
      requireHostHeader: false,
    };
    server =
      tls === undefined
        ? createServer(serverOptions, app)
        : createHttpsServer(
            // A handshake gets no longer than a request's headers would.
            {
              ...serverOptions,
              cert: tls.cert,
              key: tls.key,
              handshakeTimeout: timeouts.headersTimeoutMs,
            },
            app,
          );
    server.on("clientError", app.handleClientError);
    server.on("checkExpectation", app.handleExpectation);
    server.on("connect", app.handleConnect);
    capStats = capConnections(server, options.maxConnections, (line) => log.note(line));
    await listen(server, options.port, host);
  } catch (error) {
    // The CA files first: the store's lock, let go by abandon(), is what keeps another
    // serve of this file from writing its own CA there meanwhile.
    if (tls?.created !== undefined) await removeCreated(tls.created);
    await abandon().catch((cause: unknown) => log.note(`cleaning up failed: ${String(cause)}`));
    log.flush();
    throw error;
  }
  server.on("error", (error) => log.note(`server error: ${error.message}`));
  if (tls !== undefined && log.logsRequests) {
    noteHandshakeFailures(server as HttpsServer, tls.caFile, (line) => log.note(line));
  }
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;

  async function close(): Promise<void> {
    app.drain();
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const force = setTimeout(() => {
      app.close();
      server.closeAllConnections();
    }, timeouts.shutdownTimeoutMs);
    await stopped;
    clearTimeout(force);
    app.close();
    try {
      await store.close();
    } finally {
      log.flush();
    }
  }
  let closing: Promise<void> | undefined;

  const { fake } = app;
  /** A control-plane operation, as its route runs it; the body checked by the caller. */
  const run = (operationId: string, request: Partial<AdminRequest<unknown>>) =>
    adminOperation(operationId)(fake, {
      body: undefined,
      query: "",
      key: "",
      ...request,
    }) as AdminReply;
  /** `run` with a body checked here; an answer other than `ok` throws its message. */
  const runChecked = (where: string, operationId: string, body: unknown, ok: number) => {
    const reply = run(operationId, { body });
    if (reply.status === ok) return reply;
    const { message } = JSON.parse(String(reply.body)) as { message: string };
    throw new ServerConfigError(`${where}: ${message}`);
  };
  const origin = `${tls === undefined ? "http" : "https"}://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return {
    /** Base URL, `http://HOST:PORT/v1` (`https://` over TLS). */
    url: `${origin}/v1`,
    /** The control plane, `http://HOST:PORT/__admin`. */
    adminUrl: `${origin}/__admin`,
    port,
    host,
    /** The keys accepted now (with those added and removed at run time). */
    get keys(): readonly ApiKeySpec[] {
      return fake.keyring.list().map(({ key, plan, limits }) => ({ key, plan, limits }));
    },
    store: store as PetStore,
    /** Over TLS: the CA certificate (PEM) and its file, when serve made the certificate. */
    tls: tls && { ca: tls.ca, caFile: tls.caFile },
    /** Responses by status, resets, and connections evicted or dropped by the cap. */
    stats: () => ({ ...app.stats(), ...capStats() }),
    /**
     * The store back to what it held at start (durably); rate-limit windows, bans
     * and the request journal cleared. Keys, faults and the clock stay.
     */
    reset: async (): Promise<void> => {
      await run("reset", {});
    },
    /** The request journal, oldest first, filtered (all that match, at once); never a key. */
    requests: (filter?: RequestFilter): RecordedRequest[] =>
      fake.journal.page(parse(JOURNAL_FILTER, filterText(filter ?? {}), "requests")).requests,
    clearRequests: (): void => void run("clearRequests", {}),
    /** The fake's clock: moving it moves rate-limit windows, bans, Date and X-RateLimit-Reset. */
    clock: {
      now: () => new Date(fake.clock.now()),
      /**
       * Forward only: 0 to ten years a step, up to 9999-01-01T00:00:00Z in all
       * (a ServerConfigError past it, the clock unmoved).
       */
      advance(seconds: number): void {
        const body = parse(ClockBody, { advanceSeconds: seconds }, "clock.advance");
        runChecked("clock.advance", "advanceClock", body, 200);
      },
      get offsetSeconds(): number {
        return fake.clock.offsetSeconds;
      },
    },
    /**
     * Scripted answers, as POST /__admin/next: the next `times` requests that match get
     * `answer` (a ServerConfigError naming the field when the rule is not valid).
     */
    next(rule: NextRule) {
      const reply = runChecked("next", "addNext", parse(NextRuleBody, rule, "next"), 201);
      return reply.value as NextRule & { times: number; used: number };
    },
    /** The verdict on the app under test, as GET /__admin/verdict. */
    verdict: () => fake.verdict.verdict(),
    /** The scripted answers with how often each was used, as GET /__admin/next. */
    nextRules: () => fake.next.list().rules,
    clearNext: (): void => fake.next.clear(),
    /** Replaces every fault setting (as the `faults` option; `{}` for none). */
    setFaults: (faults: FaultOptions): void =>
      void run("setFaults", { body: parse(FaultOption, faults, "setFaults") }),
    /** Adds a key (a spec string or {key, plan?, limits?}), or gives a known key this plan. */
    addKey: (key: string | ApiKeySpec): KeyEntry =>
      run("addKey", { body: parse(KeyInput, key, "addKey") }).value as KeyEntry,
    /** Whether the key was there. */
    removeKey: (key: string): boolean =>
      run("removeKey", { key: parse(z.string({ error: "must be a string" }), key, "removeKey") })
        .status === 204,
    /** Stops accepting, finishes in-flight requests, closes the store. */
    close: () => (closing ??= close()),
  };
}

async function openStore(options: ServerOptions, log: AccessLog): Promise<PetStore> {
  if (options.pets !== undefined) return createMemoryStore(options.pets);
  if (options.file === undefined) return createMemoryStore(demoPets(options.seed ?? 0));
  const { openFileStore } = await import("./store/file-store.js");
  return openFileStore({ file: options.file, seed: options.seed, log: (line) => log.note(line) });
}

function listen(server: Server | HttpsServer, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error & { code?: string }) => {
      const code = error.code;
      if (code === "EADDRINUSE") {
        reject(
          new ServerConfigError(
            `port ${port} on ${host} is already in use; choose another with --port (--port 0 picks a free one)`,
          ),
        );
      } else if (code === "EACCES") {
        reject(new ServerConfigError(`not permitted to listen on port ${port} of ${host}`));
      } else if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN") {
        reject(new ServerConfigError(`cannot listen on ${host}: no such address on this machine`));
      } else {
        reject(error);
      }
    };
    server.once("error", fail);
    server.listen(port, host, () => {
      server.off("error", fail);
      resolve();
    });
  });
}
