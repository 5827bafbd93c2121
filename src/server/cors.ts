/**
 * CORS, so that browser code on another origin can use the fake. On by default
 * for any origin, answered with the request's own origin rather than `*`
 * (requests carry Authorization, and credentialed requests never accept `*`);
 * a list of origins restricts it; `false` turns it off. An origin that is not
 * allowed gets no grant (the browser blocks the answer) but is otherwise served.
 */
import type { IncomingHttpHeaders } from "node:http";

/** Response headers browser code may read besides the CORS-safelisted ones. */
const EXPOSED_HEADERS =
  "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Location, Deprecation, Sunset, Link";
const PREFLIGHT_VARY =
  "Origin, Access-Control-Request-Method, Access-Control-Request-Headers, Access-Control-Request-Private-Network";

/** An Origin header as browsers serialize it: `scheme://host[:port]`, or `null`. */
const SERIALIZED_ORIGIN = /^(?:null|[a-z][a-z0-9+.-]*:\/\/(?:(?![/?#@,])[!-~])+)$/;
/** An RFC 9110 field name (token). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const VARY_ORIGIN: readonly string[] = ["Vary", "Origin"];

/**
 * Allowed origins as given (`--cors`, the `cors` option) to their serialized form
 * (`HTTP://Example.com:80/` is `http://example.com`); `*` alone is any origin.
 * A string: what is wrong with them.
 */
export function normalizeOrigins(list: readonly string[]): true | string[] | string {
  if (list.length === 0) return "no origin given; give scheme://host[:port], or turn CORS off";
  if (list.some((item) => item.trim() === "*")) {
    return list.length === 1 ? true : "* (any origin) must stand alone";
  }
  const origins = new Set<string>();
  for (const item of list) {
    const given = item.trim();
    const url = URL.canParse(given) ? new URL(given) : undefined;
    if (url?.pathname !== "/" || !/^https?:\/\/[^@?#]+$/i.test(given)) {
      return `${JSON.stringify(given)} is not an origin: scheme://host[:port], the scheme http or https, no user name or password, no path, query or fragment; e.g. http://localhost:5173`;
    }
    origins.add(url.origin);
  }
  return [...origins];
}

/**
 * `setting`: normalized (normalizeOrigins). `headers`: those of an answer to a
 * request with this Origin, as a flat list (none when off). `preflight`: the
 * headers of the 204 answering a preflight, or undefined when the request is not
 * one (no Origin or no Access-Control-Request-Method) or CORS is off.
 */
export function createCors(setting: boolean | readonly string[]) {
  if (setting === false) return { headers: () => [], preflight: () => undefined };
  const only = setting === true ? undefined : new Set(setting);
  const allows = (origin: string) =>
    only === undefined ? SERIALIZED_ORIGIN.test(origin) : only.has(origin);
  const grant = (origin: string) => [
    "Access-Control-Allow-Origin",
    origin,
    "Access-Control-Allow-Credentials",
    "true",
  ];

  return {
    headers(origin: string | undefined): readonly string[] {
      if (origin === undefined || !allows(origin)) return VARY_ORIGIN;
      return [...grant(origin), "Access-Control-Expose-Headers", EXPOSED_HEADERS, ...VARY_ORIGIN];
    },
    preflight(request: IncomingHttpHeaders): string[] | undefined {
      const origin = request.origin;
      if (origin === undefined || request["access-control-request-method"] === undefined) {
        return undefined;
      }
      if (!allows(origin)) return ["Vary", PREFLIGHT_VARY];
      // The headers asked for, when every one is a field name, besides the two always allowed.
      const asked = (request["access-control-request-headers"] ?? "")
        .toLowerCase()
        .split(",")
        .map((name) => name.trim())
        .filter((name) => name !== "");
      const names = new Set(["authorization", "content-type"]);
      if (asked.every((name) => TOKEN.test(name))) for (const name of asked) names.add(name);
      const headers = [
        ...grant(origin),
        "Access-Control-Allow-Methods",
        "GET, HEAD, POST",
        "Access-Control-Allow-Headers",
        [...names].join(", "),
        // Chromium caps a preflight cache entry at two hours; Firefox at a day.
        "Access-Control-Max-Age",
        "7200",
        "Vary",
        PREFLIGHT_VARY,
      ];
      if (request["access-control-request-private-network"] === "true") {
        headers.push("Access-Control-Allow-Private-Network", "true");
      }
      return headers;
    },
  };
}
