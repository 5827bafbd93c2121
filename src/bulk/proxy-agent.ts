/**
 * The bulk add behind a proxy: undici's ProxyAgent, fed the proxy that
 * client/proxy-env.ts chose (never EnvHttpProxyAgent, which would read the
 * variables a second way). For an https:// service it opens CONNECT tunnels
 * and speaks TLS through them; for an http:// one it sends each request to the
 * proxy, as curl does (`proxyTunnel: false`). The proxy's URL is given without
 * credentials, and the credentials as the Proxy-Authorization value, so no URL
 * inside undici holds the password.
 *
 * A failure of the proxy before a tunnel is up (refused, not found, closed, or
 * CONNECT answered with anything but 200) reaches the request as a
 * TunnelFailure, so that pool-transport.ts does not blame it on the service.
 */
import type { Dispatcher, Pool as UndiciPool } from "undici";
import connect from "undici/lib/api/api-connect.js";
import Pool from "undici/lib/dispatcher/pool.js";
import ProxyAgent from "undici/lib/dispatcher/proxy-agent.js";
import type { ProxyServer } from "../client/proxy-env.js";
import { ERROR_KIND, KindedError } from "../schema/kinded-error.js";

/** The proxy failed before a tunnel was up. */
export class TunnelFailure extends KindedError {
  static override [ERROR_KIND] = "TunnelFailure";
  /** A code of undici's own would not do: see tunnelOpener. */
  readonly code = "PETSTORE_TUNNEL_FAILURE";
  constructor(
    message: string,
    /** The proxy's answer to CONNECT, when it was not 200. */
    readonly status?: number,
    /** The code of the connection's error (ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET...). */
    readonly causeCode?: string,
  ) {
    super(message);
  }
}

/** `poolOptions`: the options of every connection pool to the service (or to the proxy). */
export function createProxyAgent(
  proxy: ProxyServer,
  timeoutMs: number,
  poolOptions: UndiciPool.Options,
): Dispatcher {
  const timeout = { timeout: timeoutMs };
  return new ProxyAgent({
    uri: proxy.url,
    ...(proxy.authorization === undefined ? {} : { token: proxy.authorization }),
    proxyTunnel: false,
    proxyTls: timeout,
    requestTls: timeout,
    factory: (origin, opts) => new Pool(origin, { ...opts, ...poolOptions }),
    clientFactory: (origin, opts) => tunnelOpener(new Pool(origin, opts)),
  });
}

/**
 * The proxy's client as ProxyAgent uses it (connect, close, destroy), with every
 * failure of a CONNECT made a TunnelFailure. On a connection error coded
 * UND_ERR_SOCKET (the proxy hung up) undici would keep the request queued and
 * connect again, and again; with a code of ours it fails the request.
 */
function tunnelOpener(pool: Dispatcher): Dispatcher {
  const opener = {
    connect: async (options: Dispatcher.ConnectOptions) => {
      let answer: Dispatcher.ConnectData;
      try {
        // Without undici's entry, the dispatchers lack their API methods: connect is called as a function.
        answer = await connect.call(pool, options);
      } catch (error) {
        const { message, code } = error as NodeJS.ErrnoException;
        throw new TunnelFailure(message, undefined, code);
      }
      if (answer.statusCode !== 200) {
        answer.socket.on("error", () => {}).destroy();
        throw new TunnelFailure(`the proxy answered ${answer.statusCode}`, answer.statusCode);
      }
      return answer;
    },
    close: () => pool.close(),
    destroy: () => pool.destroy(),
  };
  return opener as unknown as Dispatcher;
}
