/**
 * The one reader of the proxy variables, for the one-shot commands and the bulk
 * add alike: which proxy, if any, a request to the base URL goes through.
 * curl's rules (lib/url.c):
 *
 * - an https:// service: `https_proxy`, else `HTTPS_PROXY`; an http:// one:
 *   `http_proxy` only. The upper-case `HTTP_PROXY` is not read, as curl does
 *   not read it: where a program runs as CGI, any web client can set it with a
 *   `Proxy:` header (httpoxy). `--verbose` and `auth status` say when it is set
 *   and ignored. ALL_PROXY is not read (it is mostly a SOCKS proxy, which
 *   petstore does not speak);
 * - `no_proxy`, else `NO_PROXY` (see no-proxy.ts); an empty variable is unset;
 * - a proxy URL without a scheme is http://, one without a port is port 1080
 *   (curl's defaults); credentials in it are percent-decoded and sent as
 *   `Proxy-Authorization: Basic`. Only http:// proxies: any other scheme, or a
 *   value that is not a URL, is refused before anything is sent (exit 2),
 *   naming the variable and never showing its value (it may hold a password).
 *
 * Two differences from curl: a loopback host (`localhost`, 127.0.0.0/8, ::1)
 * always goes direct, as Go's net/http (and so gh) does, since the proxy's
 * loopback is not this machine's and the key would cross the network in the
 * clear on the way; and so do the names reserved never to resolve (`.example`,
 * `.invalid`: the built-in placeholders), so that a first run behind a proxy is
 * told that no base URL is configured.
 */
import { UsageError } from "../errors.js";
import { isLoopbackHost } from "./key-safety.js";
import { noProxyMatch } from "./no-proxy.js";

/** The proxy requests go through; its credentials are in `authorization` only, never in `url`. */
export interface ProxyServer {
  /** `http://host:port`, the port always written. */
  url: string;
  /** The variable it came from. */
  variable: string;
  /** `Basic ...` when the URL had credentials. */
  authorization?: string;
  /** An https:// service is reached through a CONNECT tunnel; an http:// one by asking the proxy. */
  tunnel: boolean;
}

export type ProxyRoute =
  | { kind: "proxy"; proxy: ProxyServer }
  | {
      kind: "direct";
      /** Why not through the proxy of `variable`; undefined when no variable names one. */
      reason?: "no_proxy" | "loopback" | "reserved";
      variable?: string;
      /** The NO_PROXY variable and entry that matched. */
      noProxy?: { variable: string; entry: string };
      /** `HTTP_PROXY`, set but not read (see above). */
      ignored?: string;
    };

const CURL_PROXY_PORT = "1080";

/** Names reserved never to resolve (RFC 2606 and 6761), such as the built-in placeholders. */
const RESERVED_NEVER_RESOLVING = /(^|\.)(example|invalid)\.?$/i;

export function isReservedHostName(hostname: string): boolean {
  return RESERVED_NEVER_RESOLVING.test(hostname);
}

/** The first of `names` that is set and not empty. */
function firstSet(env: NodeJS.ProcessEnv, names: string[]): string | undefined {
  return names.find((name) => env[name] !== undefined && env[name] !== "");
}

export function proxyRoute(target: URL, env: NodeJS.ProcessEnv): ProxyRoute {
  const https = target.protocol === "https:";
  const variable = firstSet(env, https ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy"]);
  if (variable === undefined) {
    const ignored = !https && firstSet(env, ["HTTP_PROXY"]) !== undefined;
    return ignored ? { kind: "direct", ignored: "HTTP_PROXY" } : { kind: "direct" };
  }
  if (isLoopbackHost(target.hostname)) return { kind: "direct", reason: "loopback", variable };
  if (isReservedHostName(target.hostname)) return { kind: "direct", reason: "reserved", variable };
  const noProxy = firstSet(env, ["no_proxy", "NO_PROXY"]);
  const entry = noProxy === undefined ? undefined : noProxyMatch(env[noProxy]!, target);
  if (entry !== undefined) {
    return { kind: "direct", reason: "no_proxy", variable, noProxy: { variable: noProxy!, entry } };
  }
  return { kind: "proxy", proxy: parseProxyUrl(variable, env[variable]!, https) };
}

function parseProxyUrl(variable: string, value: string, tunnel: boolean): ProxyServer {
  const refuse = (problem: string) =>
    new UsageError(
      `${variable} ${problem}`,
      `set ${variable} to http://host:port (or http://user:password@host:port), or unset it`,
    );
  const text = value.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  if (!URL.canParse(withScheme)) throw refuse("is not a proxy URL petstore can read");
  const url = new URL(withScheme);
  if (url.protocol !== "http:") {
    throw refuse(
      `names a ${url.protocol.slice(0, -1)}:// proxy; petstore speaks only to http:// proxies`,
    );
  }
  // The URL parser drops a port that is http's default: `:80` written is still port 80.
  const port = url.port || (hasPort(withScheme) ? "80" : CURL_PROXY_PORT);
  const proxy: ProxyServer = { url: `http://${url.hostname}:${port}`, variable, tunnel };
  if (url.username !== "" || url.password !== "") {
    let credentials: string;
    try {
      credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    } catch {
      throw refuse("has a user name or password with a broken %-escape");
    }
    proxy.authorization = `Basic ${Buffer.from(credentials).toString("base64")}`;
  }
  return proxy;
}

/** Whether the URL's authority (after any user name and password) ends in `:port`. */
function hasPort(text: string): boolean {
  const authority = /^[^:]*:\/\/([^/?#]*)/.exec(text)?.[1] ?? "";
  return /:\d+$/.test(authority.slice(authority.lastIndexOf("@") + 1));
}

/** One line on the route (--verbose, auth status), or undefined when no proxy variable is set. */
export function describeRoute(route: ProxyRoute, target: URL): string | undefined {
  if (route.kind === "proxy") {
    const { proxy } = route;
    const how = proxy.tunnel ? `a CONNECT tunnel to ${target.host}` : "plain http";
    const credentials = proxy.authorization === undefined ? "" : ", with credentials";
    return `${proxy.url} (from ${proxy.variable}${credentials}), ${how}`;
  }
  switch (route.reason) {
    case "no_proxy":
      return `none: ${route.noProxy!.variable} entry "${route.noProxy!.entry}" sends ${target.hostname} direct (${route.variable} is set)`;
    case "loopback":
      return `none: ${target.hostname} is this machine, always reached direct (${route.variable} is set)`;
    case "reserved":
      return `none: ${target.hostname} is a name reserved never to exist (${route.variable} is set)`;
    default:
      return route.ignored === undefined
        ? undefined
        : `none: ${route.ignored} is not read (as curl does not read it); set http_proxy for an http:// service`;
  }
}
