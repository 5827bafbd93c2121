/**
 * The one seam between `send` and the network: one request in, one answer out,
 * any status. Tests replace it with an in-process stub; the bulk add has its own
 * on undici (../bulk/pool-transport.ts), where a run lasts seconds to hours.
 *
 * A transport that cannot get an answer throws a `NetworkError` (or
 * `TimeoutError`) whose `sent` says whether the request may have reached the
 * service, or a `ProxyError` for a proxy that failed first. Another
 * PetstoreError (a UsageError) says it refused to send the request at all;
 * anything else it throws is treated as "may have been sent".
 *
 * The one-shot commands' transport is node:http / node:https, not undici and not
 * fetch: in a one-shot CLI their start-up cost (undici's WebAssembly parser is
 * compiled in every process; behind a proxy about four times the CPU of a whole
 * `list`, docs/benchmarks.md) is larger than the whole budget. Both modules are
 * imported on the first request, so commands that never talk to the service do
 * not load them. No connection reuse (`agent: false`): a one-shot process gains
 * nothing from it, and a reused socket that the server has already closed would
 * turn a harmless POST into one whose outcome is unknown.
 *
 * Behind a proxy, an https:// service is reached through a CONNECT tunnel opened
 * by https-proxy-agent (dist/vendor/, loaded only then), an http:// one by sending
 * the request to the proxy with the whole URL as its target, as curl does. The
 * proxy's credentials go as the Proxy-Authorization header, never in a URL the
 * agent holds (its debug output shows that URL).
 */
import type { ClientRequest, IncomingHttpHeaders, RequestOptions } from "node:http";
import type { Socket } from "node:net";
import type { RequestSummary } from "../errors.js";
import { cutShortError, networkError, timeoutError, tooLargeError } from "./network-errors.js";
import type { ProxyServer } from "./proxy-env.js";
import { proxyError } from "./network-errors.js";

export interface TransportRequest {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

export interface TransportResponse {
  status: number;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  body: string;
}

export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

/** A page of 100 pets is a few kilobytes; anything this large is not our service. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** node:http(s), direct or through `proxy`. */
export function nodeTransport(proxy?: ProxyServer): Transport {
  const credentials: Record<string, string> =
    proxy?.authorization === undefined ? {} : { "proxy-authorization": proxy.authorization };
  return async (request) => {
    const url = new URL(request.url);
    const { method, headers } = request;
    const { request: open } =
      url.protocol === "https:" ? await import("node:https") : await import("node:http");
    const options: RequestOptions = { method, headers, agent: false };
    if (proxy?.tunnel) {
      const { HttpsProxyAgent } = await import("https-proxy-agent");
      // A new agent for each request: no connection is used twice.
      options.agent = new HttpsProxyAgent(proxy.url, { headers: credentials });
    } else if (proxy !== undefined) {
      const { hostname, port } = new URL(proxy.url);
      const target = { host: hostname.replace(/^\[|\]$/g, ""), port, path: url.href };
      const viaProxy = {
        ...options,
        ...target,
        headers: { ...headers, host: url.host, ...credentials },
      };
      return exchange(open(viaProxy), request, url, proxy);
    }
    return exchange(open(url, options), request, url, proxy);
  };
}

/** https-proxy-agent's words when the proxy closed the connection before answering CONNECT. */
const PROXY_ENDED = /ended before receiving CONNECT response/;

/**
 * Sends `request` on `req` and collects the answer: the timeout, the typed
 * errors, and whether the request may have reached the service when it failed.
 * Behind `proxy`, whatever fails before the tunnel is up (https), or before the
 * connection to the proxy is (http), and a 407, is the proxy's: a ProxyError.
 */
export function exchange(
  req: ClientRequest,
  request: TransportRequest,
  url: URL,
  proxy?: ProxyServer,
): Promise<TransportResponse> {
  const tls = url.protocol === "https:";
  return new Promise<TransportResponse>((resolve, reject) => {
    const summary: RequestSummary = { method: request.method, url: request.url };
    // Until the connection is up (TLS included) no byte of the request can have arrived.
    let connected = false;
    /** The proxy has done its part: the tunnel is open, or the connection to it is up. */
    let proxyPassed = proxy === undefined;
    let settled = false;
    const settle = () => {
      const first = !settled;
      settled = true;
      clearTimeout(deadline);
      return first;
    };
    const fail = (error: Error) => {
      if (!settle()) return;
      req.destroy();
      reject(error);
    };
    const proxyFailed = (facts: { message: string; status?: number; causeCode?: string }) =>
      fail(proxyError(facts, proxy!, url));
    const deadline = setTimeout(
      () => fail(timeoutError(summary, url, request.timeoutMs, connected)),
      request.timeoutMs,
    );
    req.on("socket", (socket: Socket) => {
      // A fresh socket (agent: false, or a proxy agent's new tunnel): for TLS, wait for its handshake.
      if (tls) return void socket.once("secureConnect", () => (connected = true));
      // http:// through the proxy: connected to the proxy, which passes the request on.
      const up = () => (connected = proxyPassed = true);
      if (socket.connecting) socket.once("connect", up);
      else up();
    });
    req.on("proxyConnect", ({ statusCode }: { statusCode: number }) => {
      if (statusCode === 200) proxyPassed = true;
      else proxyFailed({ message: `CONNECT answered ${statusCode}`, status: statusCode });
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (proxyPassed) return fail(networkError(error, summary, url, connected));
      const ended = error.code === undefined && PROXY_ENDED.test(error.message);
      proxyFailed({ message: error.message, causeCode: ended ? "ECONNRESET" : error.code });
    });
    req.on("response", (res) => {
      if (proxy !== undefined && !proxy.tunnel && res.statusCode === 407) {
        return proxyFailed({ message: "407", status: 407 });
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) fail(tooLargeError(summary, url, MAX_RESPONSE_BYTES));
        else chunks.push(chunk);
      });
      res.on("error", (error) => fail(networkError(error, summary, url, true)));
      res.on("close", () => {
        if (!res.complete) fail(cutShortError(summary, url));
      });
      res.on("end", () => {
        if (!settle()) return;
        const body = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, headers: flattenHeaders(res.headers), body });
      });
    });
    req.end(request.body);
  });
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}
