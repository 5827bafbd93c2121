/**
 * Whether a request comes from this machine, by a name that means this machine:
 * from a loopback address, with a Host of localhost or a loopback address (so a
 * page of another site, its name rebound to 127.0.0.1, is not taken for local).
 * Loopback is what the control plane takes for it (admin/access.ts).
 */
import type { IncomingMessage } from "node:http";
import { isLoopback } from "../admin/access.js";

export function isLocalRequest(req: IncomingMessage): boolean {
  const host = req.headers.host;
  if (!isLoopback(req.socket.remoteAddress ?? "")) return false;
  const url = `http://${host}`;
  // `localhost.` (the root's dot) is localhost too.
  const name = URL.canParse(url) ? new URL(url).hostname.replace(/\.$/, "") : "";
  return host === undefined || isLoopback(name);
}
