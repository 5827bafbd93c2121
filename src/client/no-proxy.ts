/**
 * Whether NO_PROXY sends a host direct, with the meaning curl gives it
 * (lib/noproxy.c), plus the port and `*.` forms other tools accept:
 *
 * - entries are separated by commas and blanks; case does not matter;
 * - `*` sends every host direct (curl: only when it is the whole value);
 * - a name matches itself and every name below it: `example.com` and
 *   `.example.com` both match `example.com` and `api.example.com`, never
 *   `notexample.com`; one leading dot (or `*.`, which curl ignores) and one
 *   trailing dot are dropped;
 * - an IP address matches that address, and `address/bits` (CIDR) the network,
 *   for IPv4 and IPv6 (with or without brackets); only an IP entry matches an IP
 *   host, and only a name entry a name;
 * - `entry:port` matches only on that port (curl has no port syntax: there such
 *   an entry never matches). The port of a URL without one is its scheme's.
 */
import { BlockList, isIP } from "node:net";

/** The entry of `noProxy` that matches, as written, or undefined. */
export function noProxyMatch(noProxy: string, url: URL): string | undefined {
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const host = unbracket(url.hostname.toLowerCase());
  const ipType = ipFamily(host);
  const name = ipType === undefined ? host.replace(/\.$/, "") : host;
  for (const entry of noProxy.split(/[\s,]+/)) {
    if (entry === "") continue;
    if (entry === "*") return entry;
    const parsed = parseEntry(entry.toLowerCase());
    if (parsed.port !== undefined && parsed.port !== port) continue;
    const matches =
      ipType === undefined
        ? nameMatches(name, parsed.host)
        : addressMatches(host, ipType, parsed.host);
    if (matches) return entry;
  }
  return undefined;
}

function unbracket(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

function ipFamily(host: string): "ipv4" | "ipv6" | undefined {
  const version = isIP(host);
  return version === 4 ? "ipv4" : version === 6 ? "ipv6" : undefined;
}

/** `host`, `host:port`, `[v6]`, `[v6]:port`, `v6` (more than one colon: no port), `net/bits`. */
function parseEntry(entry: string): { host: string; port?: number } {
  const bracketed = /^\[([^\]]*)\](?::(\d+))?$/.exec(entry);
  if (bracketed !== null) return withPort(bracketed[1]!, bracketed[2]);
  const colons = entry.split(":").length - 1;
  const withPortText = colons === 1 ? /^(.*):(\d+)$/.exec(entry) : null;
  return withPortText === null ? { host: entry } : withPort(withPortText[1]!, withPortText[2]);
}

function withPort(host: string, port: string | undefined): { host: string; port?: number } {
  return port === undefined ? { host } : { host, port: Number(port) };
}

function nameMatches(name: string, entry: string): boolean {
  const domain = entry.replace(/^\*?\./, "").replace(/\.$/, "");
  if (domain === "") return false;
  return name === domain || name.endsWith(`.${domain}`);
}

function addressMatches(address: string, type: "ipv4" | "ipv6", entry: string): boolean {
  const slash = entry.indexOf("/");
  const network = unbracket(slash === -1 ? entry : entry.slice(0, slash));
  const networkType = ipFamily(network);
  if (networkType !== type) return false;
  const full = type === "ipv4" ? 32 : 128;
  const bitsText = slash === -1 ? String(full) : entry.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText) || Number(bitsText) > full) return false;
  const list = new BlockList();
  list.addSubnet(network, Number(bitsText), type);
  return list.check(address, type);
}
