/**
 * Whether a request comes from this machine, by a name that means this machine:
 * from a loopback address, with a Host of localhost or a loopback address (so a
 * page of another site, its name rebound to 127.0.0.1, is not taken for local).
 */
import type { IncomingMessage } from "node:http";

function isLoopbackAddress(address: string): boolean {
  const plain = address.startsWith("::ffff:") ? address.slice(7) : address;
  return plain === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(plain);
}

function isLocalHostName(host: string): boolean {
  const name = host.startsWith("[") ? host.slice(1, host.indexOf("]")) : host.replace(/:\d*$/, "");
  const lower = name.toLowerCase().replace(/\.$/, "");
  return lower === "localhost" || lower.endsWith(".localhost") || isLoopbackAddress(lower);
}

export function isLocalRequest(req: IncomingMessage): boolean {
  const host = req.headers.host;
  return (
    isLoopbackAddress(req.socket.remoteAddress ?? "") &&
    (host === undefined || isLocalHostName(host))
  );
}
