/**
 * The transport of a bulk add: one undici dispatcher for http:// and https://
 * alike, a Pool to the service or, behind a proxy, undici's ProxyAgent (both
 * made in client/undici-dispatchers.ts, the file dist/undici.cjs, and driven by
 * client/undici-transport.ts). Each of at most `connections` connections
 * carries one request at a time. The one-shot commands stay on node:http
 * (client/node-transport.ts) unless a proxy is in use: undici's start-up cost
 * matters there, not in a run of thousands of requests.
 */
import type { ProxyServer } from "../client/proxy-env.js";
import { createPool, createProxyAgent } from "../client/undici-dispatchers.js";
import { dispatcherTransport } from "../client/undici-transport.js";
import type { Transport } from "../client/transport.js";

/** A pet is a few hundred bytes; an answer this large is not our service. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface PoolTransport {
  transport: Transport;
  /** Closes every connection. */
  close(): void;
}

export interface PoolTransportOptions {
  /** Every request goes to this origin (the base URL's). */
  origin: string;
  /** At most this many connections, each carrying one request at a time. */
  connections: number;
  /** The timeout of one attempt; also bounds the connection's set-up. */
  timeoutMs: number;
  /** The proxy to go through (client/proxy-env.ts decides); direct when absent. */
  proxy?: ProxyServer;
}

export function createPoolTransport(options: PoolTransportOptions): PoolTransport {
  const { origin, proxy } = options;
  const dispatcher =
    proxy === undefined ? createPool(origin, options) : createProxyAgent(proxy, options);
  const target = { origin, maxBytes: MAX_ANSWER_BYTES, ...(proxy === undefined ? {} : { proxy }) };
  return {
    transport: dispatcherTransport(dispatcher, target),
    close() {
      dispatcher.destroy().catch(() => {});
    },
  };
}
