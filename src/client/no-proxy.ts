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

const unbracket = (host: string) => host.replace(/^\[(.*)\]$/, "$1");

/** The entry of `noProxy` that matches, as written, or undefined. */
export function noProxyMatch(noProxy: string, url: URL): string | undefined {
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const host = unbracket(url.hostname.toLowerCase());
  return noProxy
    .split(/[\s,]+/)
    .find((entry) => entry === "*" || (entry !== "" && matches(entry.toLowerCase(), host, port)));
}

function matches(entry: string, host: string, port: number): boolean {
  // `[v6]:port`, `host:port`; an IPv6 entry without brackets (more than one colon) has no port.
  const [, pattern = entry, entryPort] =
    /^\[([^\]]*)\](?::(\d+))?$/.exec(entry) ??
    (entry.split(":").length === 2 ? /^(.*):(\d+)$/.exec(entry) : null) ??
    [];
  if (entryPort !== undefined && Number(entryPort) !== port) return false;
  const family = isIP(host);
  if (family === 0) {
    const name = host.replace(/\.$/, "");
    const domain = pattern.replace(/^\*?\./, "").replace(/\.$/, "");
    return domain !== "" && (name === domain || name.endsWith(`.${domain}`));
  }
  const [network = "", bits = family === 4 ? "32" : "128", extra] = pattern.split("/");
  const type = family === 4 ? "ipv4" : "ipv6";
  if (extra !== undefined || isIP(unbracket(network)) !== family || !/^\d{1,3}$/.test(bits)) {
    return false;
  }
  if (Number(bits) > (family === 4 ? 32 : 128)) return false;
  const list = new BlockList();
  list.addSubnet(unbracket(network), Number(bits), type);
  return list.check(host, type);
}
