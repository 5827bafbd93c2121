/**
 * `GET /v1/openapi.json` as the fake serves it: the service's document with the
 * fake's own URL as the first server, so "try it" in a reference page and clients
 * generated from the document reach this fake, not production. The URL is the one
 * the client used (its Host header, when it is a plain host and port), else the
 * address the request arrived on; https when the connection is TLS.
 */
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import { deprecationHeaderValues, SUNSET_DATE } from "../schema/deprecation.js";
import { openApiText } from "../schema/openapi.js";

export const FAKE_SERVER_DESCRIPTION = "this fake (petstore serve)";

/** A reg-name, IPv4 or bracketed IPv6 literal, and an optional port: nothing else. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::[0-9]{1,5})?$/;
/** Where the fake's URL goes in the document. */
const ORIGIN_SLOT = "http://petstore-serve.invalid/v1";

export function fakeOrigin(req: IncomingMessage): string {
  const scheme = (req.socket as Partial<TLSSocket>).encrypted === true ? "https" : "http";
  const host = req.headers.host;
  if (host !== undefined && HOST.test(host)) return `${scheme}://${host.toLowerCase()}`;
  const address = req.socket.localAddress ?? "127.0.0.1";
  const shown = address.includes(":") ? `[${address}]` : address;
  return `${scheme}://${shown}:${req.socket.localPort ?? 0}`;
}

/**
 * The document text for a request. `sunsetMs` when moved (`serve --sunset`): the
 * contract's date, as an ISO time and as the HTTP date of the Sunset header,
 * appears nowhere else.
 */
export function createOpenApiRoute(sunsetMs?: number): (req: IncomingMessage) => string {
  // Made once: only the fake's URL differs from one request to the next.
  let document = openApiText([{ url: ORIGIN_SLOT, description: FAKE_SERVER_DESCRIPTION }]);
  if (sunsetMs !== undefined) {
    const iso = new Date(sunsetMs).toISOString();
    document = document
      .replaceAll(SUNSET_DATE, iso)
      .replaceAll(new Date(SUNSET_DATE).toISOString(), iso)
      .replaceAll(deprecationHeaderValues().Sunset, deprecationHeaderValues(sunsetMs).Sunset);
  }
  return (req) => document.replace(ORIGIN_SLOT, () => `${fakeOrigin(req)}/v1`);
}
