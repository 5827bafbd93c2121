/**
 * The undici dispatchers, in a file of their own (dist/undici.cjs), required by
 * the bulk add always and by the one-shot commands only behind a proxy:
 *
 * - a Pool to the service, for a bulk add that goes direct;
 * - undici's ProxyAgent, fed the proxy that client/proxy-env.ts chose (never
 *   EnvHttpProxyAgent, which would read the variables a second way). For an
 *   https:// service it opens a CONNECT tunnel and speaks TLS through it; for an
 *   http:// one it sends each request to the proxy, as curl does
 *   (`proxyTunnel: false`). The proxy's URL is given without credentials, and
 *   the credentials as the Proxy-Authorization value, so no URL inside undici
 *   holds the password.
 *
 * A failure of the proxy before the tunnel is up (the proxy refused, not found,
 * closed, or answered CONNECT with anything but 200) reaches the request as a
 * ProxyFailure (proxy-failure.ts), so that the transport does not blame it on
 * the service.
 */
import type { Dispatcher } from "undici";
import connect from "undici/lib/api/api-connect.js";
import Pool from "undici/lib/dispatcher/pool.js";
import ProxyAgent from "undici/lib/dispatcher/proxy-agent.js";
import { PROXY_FAILURE_CODE, type ProxyFailure } from "./proxy-failure.js";

export interface DispatcherOptions {
  /** At most this many connections to the service, each carrying one request at a time. */
  connections: number;
  /** The timeout of one attempt; also bounds each connection's set-up. */
  timeoutMs: number;
}

/** The proxy of a ProxyRoute (proxy-env.ts), as much as undici needs of it. */
export interface ProxyTarget {
  url: string;
  authorization?: string;
}

function poolOptions(options: DispatcherOptions) {
  return {
    connections: options.connections,
    // A POST is not idempotent: never behind another request on the same connection.
    pipelining: 1,
    // The attempt's own timer covers the wait for headers and body.
    headersTimeout: 0,
    bodyTimeout: 0,
  };
}

export function createPool(origin: string, options: DispatcherOptions): Dispatcher {
  return new Pool(origin, { ...poolOptions(options), connect: { timeout: options.timeoutMs } });
}

export function createProxyAgent(proxy: ProxyTarget, options: DispatcherOptions): Dispatcher {
  const timeout = { timeout: options.timeoutMs };
  return new ProxyAgent({
    uri: proxy.url,
    ...(proxy.authorization === undefined ? {} : { token: proxy.authorization }),
    proxyTunnel: false,
    proxyTls: timeout,
    requestTls: timeout,
    // The connections to the service (through tunnels), or to the proxy for an http:// service.
    factory: (origin, opts) => new Pool(origin, { ...opts, ...poolOptions(options) }),
    clientFactory: (origin, opts) => tunnelOpener(new Pool(origin, opts)),
  });
}

/**
 * The proxy's client as ProxyAgent uses it (connect, close, destroy), with every
 * failure of a CONNECT made a ProxyFailure. A code of undici's own would not do:
 * on a connection error coded UND_ERR_SOCKET undici keeps the request queued
 * and connects again, and again.
 */
function tunnelOpener(pool: Dispatcher): Dispatcher {
  const opener = {
    connect: async (options: Dispatcher.ConnectOptions) => {
      let answer: Dispatcher.ConnectData;
      try {
        // Without undici's entry, the dispatchers lack their API methods: connect is called as a function.
        answer = await connect.call(pool, options);
      } catch (error) {
        throw proxyFailure(error as Error);
      }
      if (answer.statusCode !== 200) {
        answer.socket.on("error", () => {}).destroy();
        throw proxyFailure(new Error(`the proxy answered ${answer.statusCode}`), answer.statusCode);
      }
      return answer;
    },
    close: () => pool.close(),
    destroy: () => pool.destroy(),
  };
  return opener as unknown as Dispatcher;
}

function proxyFailure(cause: Error, status?: number): ProxyFailure {
  const failure = new Error(cause.message, { cause }) as ProxyFailure;
  failure.code = PROXY_FAILURE_CODE;
  const causeCode = (cause as NodeJS.ErrnoException).code;
  if (causeCode !== undefined) failure.causeCode = causeCode;
  if (status !== undefined) failure.status = status;
  return failure;
}
