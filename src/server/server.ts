/**
 * `startServer`: the fake on a real port, for `petstore serve` and for test
 * suites. With `file` it serves a JSON file through the file store; without, a
 * memory store (of `pets`, or of `seed` demo pets). A start checks its options
 * (options.ts), opens the store, then listens with node:http(s), whose timeouts
 * and refusals are set here, and undoes what it made when a step fails. The
 * RunningServer it gives back runs the control plane's own handlers
 * (admin/routes.ts), its arguments checked by the same schemas.
 */
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createServer } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import * as z from "zod/mini";
import { AccessLog } from "./access-log.js";
import { NextRuleBody, type NextRule } from "./admin/next.js";
import { JOURNAL_FILTER, type RecordedRequest } from "./admin/request-journal.js";
import { adminOperation, ClockBody, type AdminReply, type KeyEntry } from "./admin/routes.js";
import { createApp } from "./app.js";
import { ServerConfigError } from "./config-error.js";
import { capConnections } from "./connection-cap.js";
import { FaultOption, type FaultOptions } from "./faults.js";
import { KeyInput, type ApiKeySpec } from "./keys.js";
import { parse, START_OPTIONS, type ServerOptions, type StartServerOptions } from "./options.js";
import { createMemoryStore, type PetStore } from "./store/memory.js";
import { demoPets } from "./demo-pets.js";
import { removeCreated } from "./tls/local-ca.js";
import { noteHandshakeFailures, setUpTls } from "./tls/server-tls.js";

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

export async function startServer(startOptions: StartServerOptions = {}) {
  const options = parse(START_OPTIONS, startOptions, "startServer");
  const { host, timeouts } = options;
  const log = new AccessLog(options.log ?? process.stderr, options.quiet !== true);
  const store: PetStore & { abandon?(): Promise<void> } =
    options.store ?? (await openStore(options, log).finally(() => log.flush()));
  /** Closes the store of a start that failed; one opened here removes what it created. */
  const abandon = () =>
    options.store === undefined && store.abandon !== undefined ? store.abandon() : store.close();

  /** The CA files this start wrote anew: removed if it fails. */
  const created: string[] = [];
  /** Undoes a start that failed at `error`, then throws it. */
  const fail = async (error: unknown): Promise<never> => {
    // The CA files first: the store's lock, let go by abandon(), is what keeps another
    // serve of this file from writing its own CA there meanwhile.
    await removeCreated(created);
    await abandon().catch((cause: unknown) => log.note(`cleaning up failed: ${String(cause)}`));
    log.flush();
    throw error;
  };
  // After the store: its lock keeps two serves of one file from writing one CA.
  const tls = !options.tls
    ? undefined
    : await setUpTls(options.tls, {
        // The data file the local CA is kept next to.
        file: options.store === undefined ? options.file : undefined,
        host,
        note: (line) => log.note(line),
        created,
      }).catch(fail);
  const app = createApp(store, { ...options, log });
  const serverOptions = {
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    connectionsCheckingInterval: timeouts.checkIntervalMs,
    // The app answers a missing Host itself, with an Error body and the rate-limit headers.
    requireHostHeader: false,
    // A handshake gets no longer than a request's headers would.
    handshakeTimeout: timeouts.headersTimeoutMs,
  };
  const server =
    tls === undefined
      ? createServer(serverOptions, app)
      : createHttpsServer({ ...serverOptions, cert: tls.cert, key: tls.key }, app);
  server.on("clientError", app.handleClientError);
  server.on("checkExpectation", app.handleExpectation);
  server.on("connect", app.handleConnect);
  const capStats = capConnections(server, options.maxConnections, (line) => log.note(line));
  server.listen(options.port, host);
  await once(server, "listening").catch((error: Error) =>
    fail(listenError(error, options.port, host)),
  );
  server.on("error", (error) => log.note(`server error: ${error.message}`));
  if (tls !== undefined && log.logsRequests) {
    noteHandshakeFailures(server as HttpsServer, tls.caFile, (line) => log.note(line));
  }
  const { port } = server.address() as AddressInfo;

  async function close(): Promise<void> {
    app.drain();
    // Idle connections are closed at once; those with a request in flight finish it first.
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    const force = setTimeout(() => {
      app.close();
      server.closeAllConnections();
    }, timeouts.shutdownTimeoutMs);
    await stopped;
    clearTimeout(force);
    app.close();
    await store.close().finally(() => log.flush());
  }
  let closing: Promise<void> | undefined;

  const { fake } = app;
  /**
   * A control-plane route ("POST /reset"), run as HTTP runs it, its body `input` checked
   * by `schema`. A bad body, or a 400 (a rule or a clock step the state refuses), throws
   * a ServerConfigError after `where`.
   */
  const run = (operation: string, where: string, schema?: z.ZodMiniType, input?: unknown) => {
    const body = schema && parse(schema, input, where);
    const reply = adminOperation(operation)(fake, { body, query: "", key: "" }) as AdminReply;
    if (reply.status !== 400) return reply;
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
      await run("POST /reset", "reset");
    },
    /** The request journal, oldest first, filtered (all that match, at once); never a key. */
    requests: (filter: RequestFilter = {}): RecordedRequest[] => {
      const query = Object.entries(filter)
        .filter(([, value]) => value !== undefined)
        .map(([name, value]) => [name, String(value instanceof Date ? value.getTime() : value)]);
      return fake.journal.page(parse(JOURNAL_FILTER, Object.fromEntries(query), "requests"))
        .requests;
    },
    clearRequests: (): void => fake.journal.clear(),
    /** The fake's clock: moving it moves rate-limit windows, bans, Date and X-RateLimit-Reset. */
    clock: {
      now: () => new Date(fake.clock.now()),
      /**
       * Forward only: 0 to ten years a step, up to 9999-01-01T00:00:00Z in all
       * (a ServerConfigError past it, the clock unmoved).
       */
      advance(seconds: number): void {
        run("POST /clock", "clock.advance", ClockBody, { advanceSeconds: seconds });
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
      const reply = run("POST /next", "next", NextRuleBody, rule);
      return reply.value as NextRule & { times: number; used: number };
    },
    /** The verdict on the app under test, as GET /__admin/verdict. */
    verdict: () => fake.verdict.verdict(),
    /** The scripted answers with how often each was used, as GET /__admin/next. */
    nextRules: () => fake.next.list().rules,
    clearNext: (): void => fake.next.clear(),
    /** Replaces every fault setting (as the `faults` option; `{}` for none). */
    setFaults: (faults: FaultOptions): void =>
      void run("PUT /faults", "setFaults", FaultOption, faults),
    /** Adds a key (a spec string or {key, plan?, limits?}), or gives a known key this plan. */
    addKey: (key: string | ApiKeySpec): KeyEntry =>
      run("POST /keys", "addKey", KeyInput, key).value as KeyEntry,
    /** Whether the key was there. */
    removeKey: (key: string): boolean =>
      fake.keyring.remove(parse(z.string({ error: "must be a string" }), key, "removeKey")),
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

/** What a failed `listen` throws: the usual causes in words. */
function listenError(error: Error & { code?: string }, port: number, host: string): Error {
  const why =
    error.code === "EADDRINUSE"
      ? `port ${port} on ${host} is already in use; choose another with --port (--port 0 picks a free one)`
      : error.code === "EACCES"
        ? `not permitted to listen on port ${port} of ${host}`
        : ["EADDRNOTAVAIL", "ENOTFOUND", "EAI_AGAIN"].includes(error.code ?? "")
          ? `cannot listen on ${host}: no such address on this machine`
          : undefined;
  return why === undefined ? error : new ServerConfigError(why);
}
