/**
 * `GET /v1/openapi.json` as the fake serves it: the service's document with the
 * fake's own URL as the first server, so "try it" in a reference page and clients
 * generated from the document reach this fake, not production. The URL is the one
 * the client used (its Host header, when it is a plain host and port), else the
 * address the request arrived on; https when the connection is TLS.
 */
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import { openApiText } from "../schema/openapi.js";

export const FAKE_SERVER_DESCRIPTION = "this fake (petstore serve)";

/** A reg-name, IPv4 or bracketed IPv6 literal, and an optional port: nothing else. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::[0-9]{1,5})?$/;
/** Documents kept, one per distinct origin; a client varying Host cannot grow it. */
const CACHED_ORIGINS = 8;

export function fakeOrigin(req: IncomingMessage): string {
  const scheme = (req.socket as Partial<TLSSocket>).encrypted === true ? "https" : "http";
  const host = req.headers.host;
  if (host !== undefined && HOST.test(host)) return `${scheme}://${host.toLowerCase()}`;
  const address = req.socket.localAddress ?? "127.0.0.1";
  const shown = address.includes(":") ? `[${address}]` : address;
  return `${scheme}://${shown}:${req.socket.localPort ?? 0}`;
}

/** The document text for a request, built once per origin. */
export function createOpenApiRoute(): (req: IncomingMessage) => string {
  const documents = new Map<string, string>();
  return (req) => {
    const origin = fakeOrigin(req);
    let text = documents.get(origin);
    if (text === undefined) {
      text = openApiText([{ url: `${origin}/v1`, description: FAKE_SERVER_DESCRIPTION }]);
      if (documents.size >= CACHED_ORIGINS) documents.delete(documents.keys().next().value!);
      documents.set(origin, text);
    }
    return text;
  };
}
