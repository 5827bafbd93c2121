/**
 * Who may use the control plane. Bound to a loopback address, anyone on the
 * machine may, without a credential, as with WireMock. Bound to any other
 * address, it is off (404, as if it did not exist) unless an admin token is set;
 * with a token, every control-plane request must carry `Authorization: Bearer
 * <token>` (wherever the fake listens).
 *
 * Without a token, browsers are kept out: a request whose `Origin` is not the
 * fake's own (a page of another site posting to 127.0.0.1), or whose `Host` is
 * not a loopback name (DNS rebinding), is refused with 403. A page served by the
 * fake itself is of the same origin and may use it.
 */
import { hash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import type { IncomingMessage } from "node:http";
import { errorReply, type Reply } from "../reply.js";

export type AdminAccess =
  { mode: "open" } | { mode: "off"; host: string } | { mode: "token"; digest: Buffer };

/** 127.0.0.0/8, ::1 (also IPv4-mapped), `localhost` and its subdomains. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (bare === "localhost" || bare.endsWith(".localhost")) return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (isIP(bare) !== 6) return false;
  // The URL parser writes an IPv6 address one way: ::1, and ::ffff:7f00:1 for ::ffff:127.0.0.1.
  const canonical = new URL(`http://[${bare}]/`).hostname;
  return canonical === "[::1]" || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(canonical);
}

export function adminAccess(host: string, token: string | undefined): AdminAccess {
  if (token !== undefined) return { mode: "token", digest: hash("sha256", token, "buffer") };
  return isLoopback(host) ? { mode: "open" } : { mode: "off", host };
}

/** `text` as a URL; undefined when it is not one. */
const urlOf = (text: string) => (URL.canParse(text) ? new URL(text) : undefined);

/** Undefined when `req` may use the control plane; else the answer to give. */
export function refusal(access: AdminAccess, req: IncomingMessage): Reply | undefined {
  if (access.mode === "off") {
    return errorReply(
      "not_found",
      `the control plane (/__admin) is off: the fake listens on ${access.host}, not on a ` +
        "loopback address; start it with --admin-token to turn it on",
    );
  }
  const { authorization, origin, host } = req.headers;
  if (access.mode === "token") {
    const token = /^bearer +(\S+) *$/i.exec(authorization ?? "")?.[1];
    if (token === undefined || !timingSafeEqual(hash("sha256", token, "buffer"), access.digest)) {
      return errorReply(
        "admin_unauthorized",
        "the control plane needs Authorization: Bearer <the --admin-token of the fake>",
        ["WWW-Authenticate", 'Bearer realm="petstore-admin"'],
      );
    }
    return undefined;
  }
  // The Host header as the browser sent it: an unreadable one is not loopback, nor an origin.
  const sentTo = host === undefined ? undefined : urlOf(`http://${host}`);
  if (origin !== undefined && (sentTo === undefined || urlOf(origin)?.host !== sentTo.host)) {
    return errorReply(
      "admin_forbidden",
      "the control plane refuses requests from pages of another origin; send them from a test " +
        "or from the fake's own page",
    );
  }
  if (host !== undefined && (sentTo === undefined || !isLoopback(sentTo.hostname))) {
    return errorReply(
      "admin_forbidden",
      "the control plane answers only requests addressed to a loopback name (localhost, " +
        "127.0.0.1, [::1]); give the fake an --admin-token to reach it otherwise",
    );
  }
  return undefined;
}
