/**
 * The node:http (or node:https) server of the app: its timeouts, the events the
 * app answers itself, and listening, with a refusal said in words.
 */
import { createServer, type Server } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { App } from "./app.js";
import { ServerConfigError } from "./config-error.js";
import type { TlsSetup } from "./tls/server-tls.js";

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

export const DEFAULT_TIMEOUTS: ServerTimeouts = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
  shutdownTimeoutMs: 10_000,
};

export function httpServerFor(
  app: App,
  tls: TlsSetup | undefined,
  timeouts: ServerTimeouts,
): Server | HttpsServer {
  const serverOptions = {
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    connectionsCheckingInterval: timeouts.checkIntervalMs,
    // The app answers a missing Host itself, with an Error body and the rate-limit headers.
    requireHostHeader: false,
  };
  const server =
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
  return server;
}

export function listen(server: Server | HttpsServer, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => reject(listenError(error, host, port));
    server.once("error", fail);
    server.listen(port, host, () => {
      server.off("error", fail);
      resolve();
    });
  });
}

function listenError(error: Error, host: string, port: number): Error {
  const code = (error as { code?: string }).code;
  if (code === "EADDRINUSE") {
    return new ServerConfigError(
      `port ${port} on ${host} is already in use; choose another with --port (--port 0 picks a free one)`,
    );
  }
  if (code === "EACCES") {
    return new ServerConfigError(`not permitted to listen on port ${port} of ${host}`);
  }
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return new ServerConfigError(`cannot listen on ${host}: no such address on this machine`);
  }
  return error;
}
