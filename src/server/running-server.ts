/**
 * What `startServer` gives back once it listens: the URLs, the stats, the
 * control plane's operations (the same as `/__admin/*`, their arguments
 * checked as the library's callers are plain JavaScript too) and `close()`.
 */
import type { Server } from "node:http";
import type { Server as HttpsServer } from "node:https";
import type { AccessLog } from "./access-log.js";
import type { KeyEntry } from "./admin/control-plane.js";
import type { RecordedRequest } from "./admin/request-journal.js";
import type { App, ServerStats } from "./app.js";
import { ServerConfigError } from "./config-error.js";
import type { ConnectionCapStats } from "./connection-cap.js";
import type { FaultOptions } from "./faults.js";
import type { ApiKeySpec } from "./keys.js";
import { checkAdvance, checkFaults, checkFilter, keySpecOf } from "./start-options.js";
import type { PetStore } from "./store/types.js";
import type { TlsSetup } from "./tls/server-tls.js";

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

export interface RunningServer {
  /** Base URL, `http://HOST:PORT/v1` (`https://` over TLS). */
  url: string;
  /** The control plane, `http://HOST:PORT/__admin`. */
  adminUrl: string;
  port: number;
  host: string;
  /** The keys accepted now (with those added and removed at run time). */
  readonly keys: readonly ApiKeySpec[];
  store: PetStore;
  /** Over TLS: the CA certificate (PEM) and its file, when serve made the certificate. */
  tls?: { ca?: string; caFile?: string };
  stats(): ServerStats & ConnectionCapStats;
  /**
   * The store back to what it held at start (durably); rate-limit windows, bans
   * and the request journal cleared. Keys, faults and the clock stay.
   */
  reset(): Promise<void>;
  /** The request journal, oldest first, filtered; never a key. */
  requests(filter?: RequestFilter): RecordedRequest[];
  clearRequests(): void;
  /** The fake's clock: moving it moves rate-limit windows, bans, Date and X-RateLimit-Reset. */
  clock: {
    now(): Date;
    /**
     * Forward only: 0 to ten years a step, up to 9999-01-01T00:00:00Z in all
     * (a ServerConfigError past it, the clock unmoved).
     */
    advance(seconds: number): void;
    readonly offsetSeconds: number;
  };
  /** Replaces every fault setting (same shape as the `faults` option; `{}` for none). */
  setFaults(faults: FaultOptions): void;
  /** Adds a key (a spec string or {key, plan?, limits?}), or gives a known key this plan. */
  addKey(key: string | ApiKeySpec): KeyEntry;
  /** Whether the key was there. */
  removeKey(key: string): boolean;
  /** Stops accepting, finishes in-flight requests, closes the store. */
  close(): Promise<void>;
}

/** The parts of a server that listens. */
export interface Listening {
  app: App;
  server: Server | HttpsServer;
  store: PetStore;
  log: AccessLog;
  tls: TlsSetup | undefined;
  capStats: () => ConnectionCapStats;
  /** On close, how long in-flight requests may take before connections are cut. */
  shutdownTimeoutMs: number;
  host: string;
  /** The port it listens on (the one the system chose for port 0). */
  port: number;
}

export function runningServer(parts: Listening): RunningServer {
  const { app, server, store, log, tls, capStats, host, port: boundPort } = parts;
  let closing: Promise<void> | undefined;
  async function close(): Promise<void> {
    app.drain();
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const force = setTimeout(() => {
      app.close();
      server.closeAllConnections();
    }, parts.shutdownTimeoutMs);
    await stopped;
    clearTimeout(force);
    app.close();
    try {
      await store.close();
    } finally {
      log.flush();
    }
  }

  const control = app.control;
  const origin = `${tls === undefined ? "http" : "https"}://${host.includes(":") ? `[${host}]` : host}:${boundPort}`;
  return {
    url: `${origin}/v1`,
    adminUrl: `${origin}/__admin`,
    port: boundPort,
    host,
    get keys() {
      return control.keys();
    },
    store,
    tls: tls === undefined ? undefined : { ca: tls.ca, caFile: tls.caFile },
    stats: () => ({ ...app.stats(), ...capStats() }),
    reset: () => control.reset(),
    requests: (filter) => control.requests(checkFilter(filter)),
    clearRequests: () => control.clearRequests(),
    clock: {
      now: () => new Date(control.clock().nowMs),
      advance: (seconds) => {
        const moved = control.advanceClock(checkAdvance(seconds));
        if (!moved.ok) throw new ServerConfigError(`clock.advance: ${moved.problem}`);
      },
      get offsetSeconds() {
        return control.clock().offsetSeconds;
      },
    },
    setFaults: (faults) => control.setFaults(checkFaults(faults, "setFaults")),
    addKey: (key) => control.addKey(keySpecOf(key, "addKey")).entry,
    removeKey: (key) => {
      if (typeof key !== "string") {
        throw new ServerConfigError(`removeKey: the key must be a string; got ${typeof key}`);
      }
      return control.removeKey(key);
    },
    close: () => (closing ??= close()),
  };
}
