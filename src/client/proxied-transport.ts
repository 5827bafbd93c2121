/**
 * The one-shot commands' transport behind a proxy, on node:http like
 * node-transport.ts (undici's start-up would cost these commands about four
 * times their CPU behind a proxy: docs/benchmarks.md). An https:// service is
 * reached through a CONNECT tunnel opened by https-proxy-agent, loaded from
 * dist/vendor/ only here, with TLS through it by node:https; an http:// one by
 * sending the request to the proxy with the whole URL as its target, as curl
 * does. The proxy's credentials go as the Proxy-Authorization header, never in
 * a URL the agent holds (its debug output shows that URL).
 */
import type { ProxyServer } from "./proxy-env.js";
import type { Transport } from "./transport.js";
import { exchange, MAX_RESPONSE_BYTES } from "./node-transport.js";

export function proxiedTransport(proxy: ProxyServer): Transport {
  const credentials: Record<string, string> =
    proxy.authorization === undefined ? {} : { "proxy-authorization": proxy.authorization };
  return async (request) => {
    const url = new URL(request.url);
    const { method, headers } = request;
    if (proxy.tunnel) {
      const [{ request: open }, { HttpsProxyAgent }] = await Promise.all([
        import("node:https"),
        import("https-proxy-agent"),
      ]);
      // A new agent for each request: no connection is used twice (see node-transport.ts).
      const agent = new HttpsProxyAgent(proxy.url, { headers: credentials });
      return exchange(
        open(url, { method, headers, agent }),
        request,
        url,
        MAX_RESPONSE_BYTES,
        proxy,
      );
    }
    const { request: open } = await import("node:http");
    const { hostname, port } = new URL(proxy.url);
    const req = open({
      host: hostname.replace(/^\[|\]$/g, ""),
      port,
      method,
      path: url.href,
      headers: { ...headers, host: url.host, ...credentials },
      agent: false,
    });
    return exchange(req, request, url, MAX_RESPONSE_BYTES, proxy);
  };
}
