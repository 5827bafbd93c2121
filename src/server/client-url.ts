/**
 * The base URL a client on this machine uses to reach `serve`. A wildcard
 * address (`--host 0.0.0.0`, `--host ::`) means "every address" to listen on,
 * but is no address to connect to, and the CLI sends a key over plain http://
 * only to loopback: the loopback address of the same family stands in
 * (127.0.0.1, [::1]). Any other host is printed as given.
 */
import { isIPv4, isIPv6 } from "node:net";

export function listensEverywhere(host: string): boolean {
  if (isIPv4(host)) return host === "0.0.0.0";
  // Any spelling of the unspecified IPv6 address: ::, ::0, 0:0:0:0:0:0:0:0.
  return isIPv6(host) && new URL(`http://[${host}]`).hostname === "[::]";
}

export function clientBaseUrl(host: string, port: number, protocol = "http"): string {
  let shown = host;
  if (listensEverywhere(host)) shown = isIPv4(host) ? "127.0.0.1" : "::1";
  return `${protocol}://${isIPv6(shown) ? `[${shown}]` : shown}:${port}/v1`;
}
