/**
 * The real transport, on node:http / node:https. Not undici and not fetch: in a
 * one-shot CLI their start-up cost (undici's WebAssembly parser is compiled in
 * every process) is larger than the whole budget. Both modules are imported on
 * the first request so that commands that never talk to the service do not load
 * them. (The bulk add, where a run lasts seconds to hours, uses undici: see
 * src/bulk/pool-transport.ts; and so do these commands behind a proxy, see
 * proxied-transport.ts.)
 *
 * No connection reuse (`agent: false`): a one-shot process gains nothing from it,
 * and a reused socket that the server has already closed would turn a harmless
 * POST into one whose outcome is unknown.
 */
import type { ClientRequest, IncomingHttpHeaders } from "node:http";
import type { Socket } from "node:net";
import type { RequestSummary } from "../errors.js";
import { cutShortError, networkError, timeoutError, tooLargeError } from "./network-errors.js";
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

/**
 * Sends `request` on `req` and collects the answer: the timeout, the typed
 * errors, and whether the request may have reached the service when it failed.
 */
export function exchange(
  req: ClientRequest,
  request: TransportRequest,
  url: URL,
  maxBytes: number,
): Promise<TransportResponse> {
  const tls = url.protocol === "https:";
  return new Promise<TransportResponse>((resolve, reject) => {
    const summary: RequestSummary = { method: request.method, url: request.url };
    // Until the connection is up (TLS included) no byte of the request can have arrived.
    let connected = false;
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      req.destroy();
      reject(error);
    };
    const deadline = setTimeout(
      () => fail(timeoutError(summary, url, request.timeoutMs, connected)),
      request.timeoutMs,
    );
    req.on("socket", (socket: Socket) => {
      if (!socket.connecting) connected = true;
      else socket.once(tls ? "secureConnect" : "connect", () => (connected = true));
    });
    req.on("error", (error) => fail(networkError(error, summary, url, connected)));
    req.on("response", (res) => {
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
