/**
 * The real transport, on node:http / node:https. Not undici and not fetch: in a
 * one-shot CLI their start-up cost (undici's WebAssembly parser is compiled in
 * every process) is larger than the whole budget; see measurements.md. Both
 * modules are imported on the first request so that commands that never talk to
 * the service do not load them.
 *
 * No connection reuse (`agent: false`): a one-shot process gains nothing from it,
 * and a reused socket that the server has already closed would turn a harmless
 * POST into one whose outcome is unknown.
 */
import type { ClientRequest, IncomingHttpHeaders } from "node:http";
import type { Socket } from "node:net";
import { NetworkError, TimeoutError, TlsError, type RequestSummary } from "../errors.js";
import { lastingDnsFailure } from "./dns.js";
import type { Transport, TransportRequest, TransportResponse } from "./transport.js";

/** A page of 100 pets is a few kilobytes; anything this large is not our service. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export const NOT_CONNECTED_CODES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ENETUNREACH: "network unreachable",
  EHOSTUNREACH: "host unreachable",
};

export const nodeTransport: Transport = async (request) => {
  const url = new URL(request.url);
  const tls = url.protocol === "https:";
  const { request: open } = tls ? await import("node:https") : await import("node:http");
  const req = open(url, { method: request.method, headers: request.headers, agent: false });
  return exchange(req, request, url, MAX_RESPONSE_BYTES);
};

/**
 * Sends `request` on `req` (made by node:http or node:https, on a new or a pooled
 * connection) and collects the answer: the timeout, the typed errors, and whether
 * the request may have reached the service when it failed.
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
    // Until the connection is up (TLS included) no byte of the request can have arrived;
    // a pooled connection that is already up may have taken some.
    let connected = false;
    let settled = false;
    const fail = (error: NetworkError) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      req.destroy();
      reject(error);
    };
    const deadline = setTimeout(
      () => fail(timeoutError(request, summary, url, connected)),
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
          const limit = `${maxBytes / (1024 * 1024)} MiB`;
          fail(
            new NetworkError(`the answer from ${url.host} is larger than ${limit}`, summary, true),
          );
        } else {
          chunks.push(chunk);
        }
      });
      res.on("error", (error) => fail(networkError(error, summary, url, true)));
      res.on("close", () => {
        if (!res.complete) {
          fail(new NetworkError(`${url.host} closed the connection mid-answer`, summary, true));
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

export function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

/** OpenSSL's and Node's codes for a certificate or protocol another attempt would meet again. */
const LASTING_TLS_FAILURE = /CERT|SELF_SIGNED|ALTNAME|UNABLE_TO_(GET|VERIFY)|^ERR_SSL_|^ERR_TLS_/;

function timeoutError(
  request: TransportRequest,
  summary: RequestSummary,
  url: URL,
  connected: boolean,
): TimeoutError {
  const seconds = request.timeoutMs / 1000;
  const what = connected ? "no complete answer" : "could not connect";
  return new TimeoutError(
    `${what} from ${url.host} within ${seconds} s`,
    summary,
    connected,
    "a slow service may need a longer --timeout",
  );
}

function networkError(
  error: Error,
  summary: RequestSummary,
  url: URL,
  connected: boolean,
): NetworkError {
  const code = (error as NodeJS.ErrnoException).code ?? "";
  const hostNotFound = connected ? undefined : lastingDnsFailure(code, summary, url);
  if (hostNotFound !== undefined) return hostNotFound;
  const notConnected = NOT_CONNECTED_CODES[code];
  if (notConnected !== undefined && !connected) {
    return new NetworkError(
      `could not connect to ${url.host}: ${notConnected}`,
      summary,
      false,
      "check the base URL (--base-url, PETSTORE_BASE_URL or the profile) and that the service is up",
    );
  }
  if (code === "ECONNRESET" || code === "EPIPE") {
    return new NetworkError(`${url.host} reset the connection`, summary, connected);
  }
  // Any other failure of an https request before the handshake completed is the TLS layer's.
  if (url.protocol === "https:" && !connected) {
    if (LASTING_TLS_FAILURE.test(code)) {
      return new TlsError(
        `TLS connection to ${url.host} failed: ${error.message}`,
        summary,
        false,
        "check the host name in the base URL; for a certificate of a private authority, point NODE_EXTRA_CA_CERTS at that authority's certificate",
      );
    }
    return new NetworkError(
      `TLS connection to ${url.host} failed: ${error.message}`,
      summary,
      false,
    );
  }
  return new NetworkError(
    `request to ${url.host} failed: ${code || error.message}`,
    summary,
    connected,
  );
}
