/**
 * The real transport, on node:http / node:https. Not undici and not fetch: in a
 * one-shot CLI their start-up cost (undici's WebAssembly parser is compiled in
 * every process) is larger than the whole budget. Both modules are imported on
 * the first request so that commands that never talk to the service do not load
 * them. (The bulk add, where a run lasts seconds to hours, uses undici: see
 * src/bulk/pool-transport.ts.) Behind a proxy, proxied-transport.ts opens the
 * request and `exchange` here carries it.
 *
 * No connection reuse (`agent: false`): a one-shot process gains nothing from it,
 * and a reused socket that the server has already closed would turn a harmless
 * POST into one whose outcome is unknown.
 */
import type { ClientRequest, IncomingHttpHeaders } from "node:http";
import type { Socket } from "node:net";
import type { RequestSummary } from "../errors.js";
import { cutShortError, networkError, timeoutError, tooLargeError } from "./network-errors.js";
import type { ProxyServer } from "./proxy-env.js";
import { proxyError } from "./proxy-errors.js";
import type { Transport, TransportRequest, TransportResponse } from "./transport.js";

/** A page of 100 pets is a few kilobytes; anything this large is not our service. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export const nodeTransport: Transport = async (request) => {
  const url = new URL(request.url);
  const tls = url.protocol === "https:";
  const { request: open } = tls ? await import("node:https") : await import("node:http");
  const req = open(url, { method: request.method, headers: request.headers, agent: false });
  return exchange(req, request, url, MAX_RESPONSE_BYTES);
};

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
  maxBytes: number,
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
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
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
      const up = () => {
        connected = true;
        // http:// through the proxy: connected to the proxy, which passes the request on.
        proxyPassed = true;
      };
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
        if (size > maxBytes) {
          fail(tooLargeError(summary, url, maxBytes));
        } else {
          chunks.push(chunk);
        }
      });
      res.on("error", (error) => fail(networkError(error, summary, url, true)));
      res.on("close", () => {
        if (!res.complete) {
          fail(cutShortError(summary, url));
        }
      });
      res.on("end", () => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve({
          status: res.statusCode ?? 0,
          headers: flattenHeaders(res.headers),
          body: Buffer.concat(chunks).toString("utf8"),
        });
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
