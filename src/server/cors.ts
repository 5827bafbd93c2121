/**
 * CORS, so that browser code on another origin can use the fake. On by default
 * for any origin, answered with the request's own origin rather than `*`
 * (requests carry Authorization, and credentialed requests never accept `*`);
 * a list of origins restricts it; `false` turns it off. An origin that is not
 * allowed gets no grant (the browser blocks the answer) but is otherwise served.
 */
import type { IncomingHttpHeaders } from "node:http";
import { ServerConfigError } from "./config-error.js";

/** `true`: any origin; a list: those origins only (`["*"]` is any); `false`: off. */
export type CorsOption = boolean | readonly string[];

/** Response headers browser code may read besides the CORS-safelisted ones. */
const EXPOSED_HEADERS = [
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "Retry-After",
  "Location",
  "Deprecation",
  "Sunset",
  "Link",
].join(", ");

const ALLOWED_METHODS = "GET, HEAD, POST";
const ALWAYS_ALLOWED_HEADERS = ["authorization", "content-type"];
/** Chromium caps a preflight cache entry at two hours; Firefox at a day. */
const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/** An Origin header as browsers serialize it: `scheme://host[:port]`, or `null`. */
const SERIALIZED_ORIGIN = /^(?:null|[a-z][a-z0-9+.-]*:\/\/(?:(?![/?#@,])[!-~])+)$/;
/** An RFC 9110 field name (token). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const EMPTY: readonly string[] = [];
const VARY_ORIGIN: readonly string[] = ["Vary", "Origin"];
const PREFLIGHT_VARY =
  "Origin, Access-Control-Request-Method, Access-Control-Request-Headers, Access-Control-Request-Private-Network";

export interface Cors {
  /** Headers for an answer to a request with this Origin, as a flat list (empty when off). */
  headers(origin: string | undefined): readonly string[];
  /**
   * The headers of the 204 answering a preflight, or undefined when the request is
   * not one (no Origin or no Access-Control-Request-Method) or CORS is off.
   */
  preflight(request: IncomingHttpHeaders): readonly string[] | undefined;
}

const EXAMPLE = "give scheme://host[:port], e.g. http://localhost:5173";

/** One allowed origin, as given, to its serialized form (`HTTP://Example.com:80/` is `http://example.com`). */
function normalizeOrigin(text: string, where: string): string {
  const trimmed = text.trim();
  const quoted = JSON.stringify(text);
  if (trimmed === "") throw new ServerConfigError(`${where}: an empty origin; ${EXAMPLE}`);
  let url: URL | undefined;
  try {
    url = new URL(trimmed);
  } catch {
    // Said below.
  }
  if (url === undefined || !/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    throw new ServerConfigError(`${where}: ${quoted} is not an origin; ${EXAMPLE}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new ServerConfigError(`${where}: ${quoted}: an origin has no user name or password`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ServerConfigError(`${where}: ${quoted}: the scheme must be http or https`);
  }
  if (url.pathname !== "/" || /[?#]/.test(trimmed)) {
    throw new ServerConfigError(
      `${where}: ${quoted} is not an origin: an origin has no path, query or fragment; ${EXAMPLE}`,
    );
  }
  return url.origin;
}

/** A list of allowed origins, normalized; `["*"]` is any origin (`true`). */
function normalizeOrigins(list: readonly string[], where: string): true | string[] {
  if (list.length === 0) {
    throw new ServerConfigError(`${where}: no origin given; ${EXAMPLE}, or turn CORS off`);
  }
  if (list.some((item) => item.trim() === "*")) {
    if (list.length === 1) return true;
    throw new ServerConfigError(`${where}: * (any origin) must stand alone`);
  }
  return [...new Set(list.map((item) => normalizeOrigin(item, where)))];
}

/** The `cors` option normalized: `true`, `false`, or the allowed origins in serialized form. */
export function normalizeCors(option: CorsOption = true): CorsOption {
  return typeof option === "boolean" ? option : normalizeOrigins(option, "cors");
}

/** `--cors a,b,c`: the origins, normalized, or `true` for `--cors '*'`. */
export function parseCorsFlag(text: string): true | string[] {
  return normalizeOrigins(text.split(","), "--cors");
}

/** The requested headers when every one is a field name, with the two always allowed. */
function allowedHeaders(requested: string | undefined): string {
  if (requested === undefined || requested.trim() === "") return ALWAYS_ALLOWED_HEADERS.join(", ");
  const names = requested
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  if (!names.every((name) => TOKEN.test(name))) return ALWAYS_ALLOWED_HEADERS.join(", ");
  return [...new Set([...ALWAYS_ALLOWED_HEADERS, ...names])].join(", ");
}

/** `setting`: normalized (normalizeCors). */
export function createCors(setting: CorsOption = true): Cors {
  if (setting === false) return { headers: () => EMPTY, preflight: () => undefined };
  const only = setting === true ? undefined : new Set(setting);
  const allows = (origin: string) =>
    only === undefined ? SERIALIZED_ORIGIN.test(origin) : only.has(origin);

  // Browsers send one origin over and over: its headers are built once.
  let lastOrigin: string | undefined;
  let lastHeaders = VARY_ORIGIN;

  return {
    headers(origin) {
      if (origin === undefined) return VARY_ORIGIN;
      if (origin !== lastOrigin) {
        lastOrigin = origin;
        lastHeaders = allows(origin)
          ? [
              "Access-Control-Allow-Origin",
              origin,
              "Access-Control-Allow-Credentials",
              "true",
              "Access-Control-Expose-Headers",
              EXPOSED_HEADERS,
              ...VARY_ORIGIN,
            ]
          : VARY_ORIGIN;
      }
      return lastHeaders;
    },
    preflight(request) {
      const origin = request.origin;
      if (origin === undefined || request["access-control-request-method"] === undefined) {
        return undefined;
      }
      if (!allows(origin)) return ["Vary", PREFLIGHT_VARY];
      const headers = [
        "Access-Control-Allow-Origin",
        origin,
        "Access-Control-Allow-Credentials",
        "true",
        "Access-Control-Allow-Methods",
        ALLOWED_METHODS,
        "Access-Control-Allow-Headers",
        allowedHeaders(request["access-control-request-headers"]),
        "Access-Control-Max-Age",
        String(PREFLIGHT_MAX_AGE_SECONDS),
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
