/**
 * `startServer`: the fake on a real port, for `petstore serve` and for test
 * suites. With `file` it serves a JSON file through the file store; without, a
 * memory store (of `pets`, or of `seed` demo pets). A start checks its options,
 * opens the store, then listens with node:http(s), whose timeouts and refusals
 * are set here, and undoes what it made when a step fails; the RunningServer it
 * gives back is running-server.ts's.
 */
import { createServer, type Server } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import { AccessLog, type LogSink } from "./access-log.js";
import { createApp, type App, type Clock } from "./app.js";
import { ServerConfigError } from "./config-error.js";
import { normalizeCors } from "./cors.js";
import {
  capConnections,
  defaultMaxConnections,
  MAX_CONNECTIONS_LIMIT,
  type ConnectionCapStats,
} from "./connection-cap.js";
import { faultSettingsOf, type FaultOptions } from "./faults.js";
import { generateKey, mergeKeys, type ApiKeySpec } from "./keys.js";
import { keySpecOf, optionsChecker, petsOf, START_OPTION_SHAPE } from "./start-options.js";
import type { Pet } from "../schema/pet.js";
import { DEFAULT_BAN_POLICY, type BanPolicy } from "./rate-limit.js";
import { runningServer, type RunningServer } from "./running-server.js";
import { createMemoryStore } from "./store/memory.js";
import { demoPets } from "./store/seed.js";
import type { PetStore } from "./store/types.js";
import { removeCreated } from "./tls/local-ca.js";
import {
  checkTlsOption,
  noteHandshakeFailures,
  setUpTls,
  type TlsOption,
  type TlsSetup,
} from "./tls/server-tls.js";

export type { RequestFilter, RunningServer } from "./running-server.js";

export interface ServerTimeouts {
  /** Time allowed for a request's headers (slowloris guard). */
  headersTimeoutMs: number;
  /** Time allowed for a whole request, headers and body. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept. */
  keepAliveTimeoutMs: number;
  /** How often the two request timeouts above are checked. */
  checkIntervalMs: number;
  /** On close, how long in-flight requests may take before connections are cut. */
  shutdownTimeoutMs: number;
}

const DEFAULT_TIMEOUTS: ServerTimeouts = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
  shutdownTimeoutMs: 10_000,
};

export interface StartServerOptions {
  /** JSON file of pets (created when missing); without it, a memory store. */
  file?: string;
  /** A store to serve instead of `file`; `close()` closes it. */
  store?: PetStore;
  /** Number of demo pets to start with when the file is new (or in memory). */
  seed?: number;
  /**
   * The pets of an in-memory store (ids given; numbers or bigints), what `reset()`
   * goes back to. Not with `file`, `store` or `seed`.
   */
  pets?: ReadonlyArray<
    Omit<Pet, "id" | "categoryId"> & { id: bigint | number; categoryId: bigint | number }
  >;
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Key specs (`key[:plan[:perMinute/perDay]]`) or parsed keys; default: one generated free key. */
  keys?: ReadonlyArray<string | ApiKeySpec>;
  clock?: Clock;
  /** No access log (server notes are still written). */
  quiet?: boolean;
  /** Where the access log and notes go; default stderr. */
  log?: LogSink;
  faults?: FaultOptions;
  ban?: Partial<BanPolicy>;
  timeouts?: Partial<ServerTimeouts>;
  /**
   * Open connections allowed; idle ones are closed first to make room. Default
   * 1,000, or fewer under a lower open-files limit.
   */
  maxConnections?: number;
  /**
   * Serve https: `{ cert, key }` (PEM text) with that certificate, or `true` with
   * one signed by a local CA, which is kept next to `file` (`<file>.ca.pem`,
   * reused while valid) or, without a file, in memory. `running.tls.ca` is the
   * certificate for clients to trust.
   */
  tls?: TlsOption;
  /**
   * CORS: true (the default) for any origin, answered with the request's own
   * origin; a list of origins (`scheme://host[:port]`) for those only; false for off.
   */
  cors?: boolean | readonly string[];
  /** Requests kept in the request journal (`requests()`); 0 turns it off. Default 1,000. */
  journalSize?: number;
  /**
   * Required as `Authorization: Bearer <token>` by `/__admin/*`; without it the
   * control plane is open on a loopback host and off on any other.
   */
  adminToken?: string;
}

const checkOptions = optionsChecker<StartServerOptions>(START_OPTION_SHAPE, "startServer");

export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  checkOptions(options);
  const clash = (["file", "store", "seed"] as const).filter((name) => options[name] !== undefined);
  if (options.pets !== undefined && clash.length > 0) {
    throw new ServerConfigError(
      `startServer: pets start an in-memory store and cannot be given with ${clash.join(" or ")}`,
    );
  }
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 0;
  const given = (options.keys ?? []).map((key) => keySpecOf(key, "key"));
  const keys = given.length > 0 ? mergeKeys(given) : [generateKey()];
  const faults = options.faults && faultSettingsOf(options.faults, "startServer");
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const maxConnections = options.maxConnections ?? defaultMaxConnections();
  if (
    !(Number.isInteger(maxConnections) && maxConnections >= 1) ||
    maxConnections > MAX_CONNECTIONS_LIMIT
  ) {
    throw new ServerConfigError(
      `the connection cap must be an integer from 1 to ${MAX_CONNECTIONS_LIMIT}; got ${maxConnections}`,
    );
  }
  const tlsOption = checkTlsOption(options.tls);
  /** The data file the local CA is kept next to. */
  const caNextTo = options.store === undefined ? options.file : undefined;
  const cors = normalizeCors(options.cors);
  const log = new AccessLog(options.log ?? process.stderr, options.quiet !== true);
  const store: PetStore & { abandon?(): Promise<void> } = await (
    options.store === undefined ? openStore(options, log) : Promise.resolve(options.store)
  ).catch((error: unknown) => {
    log.flush();
    throw error;
  });
  /** Closes the store of a start that failed; one opened here removes what it created. */
  const abandon = () =>
    options.store === undefined && store.abandon !== undefined ? store.abandon() : store.close();

  let app: App;
  let server: Server | HttpsServer;
  let capStats: () => ConnectionCapStats;
  let tls: TlsSetup | undefined;
  try {
    // After the store: its lock keeps two serves of one file from writing one CA.
    if (tlsOption !== undefined) {
      tls = await setUpTls(tlsOption, {
        file: caNextTo,
        host,
        now: new Date(),
        note: (line) => log.note(line),
      });
    }
    app = createApp(store, {
      keys,
      clock: options.clock,
      log,
      faults,
      ban: { ...DEFAULT_BAN_POLICY, ...options.ban },
      cors,
      journalSize: options.journalSize,
      admin: { host, token: options.adminToken },
    });
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
    capStats = capConnections(server, maxConnections, (line) => log.note(line));
    await listen(server, port, host);
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
  const boundPort = typeof address === "object" && address !== null ? address.port : port;

  return runningServer({
    app,
    server,
    store,
    log,
    tls,
    capStats,
    shutdownTimeoutMs: timeouts.shutdownTimeoutMs,
    host,
    port: boundPort,
  });
}

async function openStore(options: StartServerOptions, log: AccessLog): Promise<PetStore> {
  if (options.pets !== undefined) return createMemoryStore(petsOf(options.pets));
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
