/**
 * `startServer`: the fake on a real port, for `petstore serve` and for test
 * suites. With `file` it serves a JSON file through the file store; without, a
 * memory store (of `pets`, or of `seed` demo pets). A start checks its options,
 * opens the store, then listens (http-server.ts), and undoes what it made when a
 * step fails; the RunningServer it gives back is running-server.ts's.
 */
import type { Server } from "node:http";
import type { Server as HttpsServer } from "node:https";
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
import { faultSettingsOf, type FaultOptions } from "./settings/faults.js";
import { DEFAULT_TIMEOUTS, httpServerFor, listen, type ServerTimeouts } from "./http-server.js";
import { generateKey, mergeKeys, type ApiKeySpec } from "./keys.js";
import { keySpecOf, optionsChecker, petsOf, START_OPTION_SHAPE } from "./start-options.js";
import type { Pet } from "../schema/pet.js";
import { DEFAULT_BAN_POLICY, type BanPolicy } from "./rate-limit.js";
import { runningServer, type RunningServer } from "./running-server.js";
import { createMemoryStore } from "./store/memory.js";
import { demoPets } from "./store/seed.js";
import type { FileStore } from "./store/file-store.js";
import type { PetStore } from "./store/types.js";
import { removeCreated } from "./tls/local-ca.js";
import {
  checkTlsOption,
  noteHandshakeFailures,
  precheckTls,
  setUpTls,
  type TlsOption,
  type TlsSetup,
} from "./tls/server-tls.js";

export type { ServerTimeouts } from "./http-server.js";
export type { RequestFilter, RunningServer } from "./running-server.js";

/** Demo pets a new store may start with (`--seed`). */
export const MAX_SEED_PETS = 1_000_000;

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
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ServerConfigError(`the port must be an integer from 0 to 65535; got ${port}`);
  }
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
  await precheckTls(tlsOption, caNextTo);
  const cors = normalizeCors(options.cors);
  const log = new AccessLog(options.log ?? process.stderr, options.quiet !== true);
  let store: PetStore;
  /** Closes the store of a start that failed, leaving nothing the start created. */
  let abandon: () => Promise<void>;
  try {
    if (options.store !== undefined) {
      store = options.store;
      abandon = () => store.close();
    } else {
      const opened = await openStore(options, log);
      store = opened;
      abandon = "abandon" in opened ? () => opened.abandon() : () => opened.close();
    }
  } catch (error) {
    log.flush();
    throw error;
  }

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
    server = httpServerFor(app, tls, timeouts);
    capStats = capConnections(server, maxConnections, (line) => log.note(line), tls !== undefined);
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

  return runningServer({ app, server, store, log, tls, capStats, timeouts, host, port: boundPort });
}

async function openStore(
  options: StartServerOptions,
  log: AccessLog,
): Promise<PetStore | FileStore> {
  const seed = options.seed;
  if (seed !== undefined && !(Number.isInteger(seed) && seed >= 0 && seed <= MAX_SEED_PETS)) {
    throw new ServerConfigError(
      `the number of demo pets must be an integer from 0 to ${MAX_SEED_PETS}; got ${seed}`,
    );
  }
  if (options.pets !== undefined) return createMemoryStore(petsOf(options.pets));
  if (options.file === undefined) return createMemoryStore(demoPets(seed ?? 0));
  const { openFileStore } = await import("./store/file-store.js");
  return openFileStore({ file: options.file, seed, log: (line) => log.note(line) });
}
