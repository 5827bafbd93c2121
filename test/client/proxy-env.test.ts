/**
 * The one reader of the proxy variables: curl's choice of variable and its
 * defaults, the loopback and placeholder hosts that always go direct, the
 * refusals (exit 2, naming the variable, never its value), and NO_PROXY's syntax
 * as curl reads it, with ports, `*.` and CIDR besides.
 */
import { describe, expect, it } from "vitest";
import { noProxyMatch } from "../../src/client/no-proxy.js";
import { describeRoute, proxyRoute, type ProxyRoute } from "../../src/client/proxy-env.js";
import { EXIT, UsageError } from "../../src/errors.js";

const HTTPS = new URL("https://api.shelter.org/v1");
const HTTP = new URL("http://api.shelter.org/v1");

function proxyOf(route: ProxyRoute) {
  if (route.kind !== "proxy") throw new Error(`direct: ${JSON.stringify(route)}`);
  return route.proxy;
}

function refusal(target: URL, env: NodeJS.ProcessEnv): UsageError {
  try {
    proxyRoute(target, env);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error("not refused");
}

describe("which variable names the proxy (curl's order)", () => {
  it("an https service: https_proxy, else HTTPS_PROXY; an empty one counts as unset", () => {
    const both = { https_proxy: "http://lower:1", HTTPS_PROXY: "http://upper:2" };
    expect(proxyOf(proxyRoute(HTTPS, both))).toMatchObject({
      url: "http://lower:1",
      variable: "https_proxy",
      tunnel: true,
    });
    const upper = { https_proxy: "", HTTPS_PROXY: "http://upper:2" };
    expect(proxyOf(proxyRoute(HTTPS, upper))).toMatchObject({ variable: "HTTPS_PROXY" });
    expect(proxyRoute(HTTPS, { http_proxy: "http://p:1", ALL_PROXY: "http://p:2" })).toEqual({
      kind: "direct",
    });
  });

  it("an http service: http_proxy only; HTTP_PROXY is not read, and that is said", () => {
    expect(proxyOf(proxyRoute(HTTP, { http_proxy: "http://p:3128" }))).toMatchObject({
      url: "http://p:3128",
      variable: "http_proxy",
      tunnel: false,
    });
    const upper = proxyRoute(HTTP, { HTTP_PROXY: "http://p:3128", HTTPS_PROXY: "http://q:1" });
    expect(upper).toEqual({ kind: "direct", ignored: "HTTP_PROXY" });
    expect(describeRoute(upper, HTTP)).toBe(
      "none: HTTP_PROXY is not read (as curl does not read it); set http_proxy for an http:// service",
    );
    expect(describeRoute(proxyRoute(HTTP, {}), HTTP)).toBeUndefined();
  });

  it("no scheme is http://, no port is 1080 (curl's defaults); the port is always written", () => {
    expect(proxyOf(proxyRoute(HTTPS, { HTTPS_PROXY: "proxy.corp" })).url).toBe(
      "http://proxy.corp:1080",
    );
    expect(proxyOf(proxyRoute(HTTPS, { HTTPS_PROXY: "proxy.corp:8080" })).url).toBe(
      "http://proxy.corp:8080",
    );
    expect(proxyOf(proxyRoute(HTTPS, { HTTPS_PROXY: "HTTP://Proxy.Corp:80/" })).url).toBe(
      "http://proxy.corp:80",
    );
    expect(proxyOf(proxyRoute(HTTPS, { HTTPS_PROXY: "http://[::1]:3128" })).url).toBe(
      "http://[::1]:3128",
    );
    expect(proxyOf(proxyRoute(HTTPS, { HTTPS_PROXY: "http://u:p:80@[::1]" })).url).toBe(
      "http://[::1]:1080",
    );
  });

  it("credentials are %-decoded into Proxy-Authorization and kept out of the URL", () => {
    const proxy = proxyOf(
      proxyRoute(HTTPS, { HTTPS_PROXY: "http://al%40ce:p%3Ass%2Fw%C3%B6rd@proxy:3128" }),
    );
    expect(proxy.url).toBe("http://proxy:3128");
    expect(proxy.authorization).toBe(`Basic ${Buffer.from("al@ce:p:ss/wörd").toString("base64")}`);
    const userOnly = proxyOf(proxyRoute(HTTPS, { HTTPS_PROXY: "http://alice@proxy:3128" }));
    expect(userOnly.authorization).toBe(`Basic ${Buffer.from("alice:").toString("base64")}`);
    expect(describeRoute({ kind: "proxy", proxy }, HTTPS)).toBe(
      "http://proxy:3128 (from HTTPS_PROXY, with credentials), a CONNECT tunnel to api.shelter.org",
    );
  });
});

describe("hosts that always go direct", () => {
  const env = { HTTPS_PROXY: "http://proxy:3128", http_proxy: "http://proxy:3128" };

  it.each([
    "https://localhost:8443",
    "http://127.0.0.1:4010/v1",
    "http://127.1.2.3",
    "https://[::1]:8443",
  ])("%s: loopback, which is not the proxy's", (url) => {
    const route = proxyRoute(new URL(url), env);
    expect(route).toMatchObject({ kind: "direct", reason: "loopback" });
    expect(describeRoute(route, new URL(url))).toMatch(/is this machine, always reached direct/);
  });

  it("the built-in placeholders (.example), which exist nowhere", () => {
    const target = new URL("https://api.petstore.example/v1");
    expect(proxyRoute(target, env)).toMatchObject({ kind: "direct", reason: "reserved" });
  });

  it("a host NO_PROXY names; no_proxy before NO_PROXY, an empty one unset", () => {
    const route = proxyRoute(HTTPS, { ...env, no_proxy: "", NO_PROXY: "example.com, shelter.org" });
    expect(route).toEqual({
      kind: "direct",
      reason: "no_proxy",
      variable: "HTTPS_PROXY",
      noProxy: { variable: "NO_PROXY", entry: "shelter.org" },
    });
    expect(describeRoute(route, HTTPS)).toBe(
      'none: NO_PROXY entry "shelter.org" sends api.shelter.org direct (HTTPS_PROXY is set)',
    );
    const lower = proxyRoute(HTTPS, { ...env, no_proxy: "other.org", NO_PROXY: "shelter.org" });
    expect(lower.kind).toBe("proxy");
  });
});

describe("a proxy variable that cannot be used is refused (exit 2), naming it, never its value", () => {
  const secret = "hunter2-secret";
  it.each([
    [
      `socks5://u:${secret}@proxy:1080`,
      "names a socks5:// proxy; petstore speaks only to http:// proxies",
    ],
    [
      `https://u:${secret}@proxy:443`,
      "names a https:// proxy; petstore speaks only to http:// proxies",
    ],
    [`http://u:${secret}@proxy:99999`, "is not a proxy URL petstore can read"],
    [`http://u:${secret}%zz@proxy:3128`, "has a user name or password with a broken %-escape"],
    [`http://u:${secret}@:3128`, "is not a proxy URL petstore can read"],
  ])("%s", (value, problem) => {
    const error = refusal(HTTPS, { https_proxy: value });
    expect(error.exitCode).toBe(EXIT.USAGE);
    expect(error.message).toBe(`https_proxy ${problem}`);
    expect(`${error.message} ${error.hint}`).not.toContain(secret);
  });

  it("only the variable that would be used: not one a NO_PROXY entry or loopback makes moot", () => {
    const broken = { HTTPS_PROXY: "socks5://proxy:1080" };
    expect(proxyRoute(new URL("https://127.0.0.1:8443"), broken).kind).toBe("direct");
    expect(proxyRoute(HTTPS, { ...broken, NO_PROXY: "*" }).kind).toBe("direct");
    expect(proxyRoute(HTTP, broken)).toEqual({ kind: "direct" });
  });
});

describe("NO_PROXY as curl reads it", () => {
  const at = (url: string) => new URL(url);
  it.each([
    // [NO_PROXY, URL, the entry that matches or undefined]; addresses are loopback ones: no test
    // names another, though nothing here connects
    ["*", "https://any.where", "*"],
    ["localhost, *", "https://any.where", "*"],
    ["example.com", "https://example.com", "example.com"],
    ["example.com", "https://api.example.com", "example.com"],
    ["example.com", "https://notexample.com", undefined],
    [".example.com", "https://example.com", ".example.com"],
    [".example.com", "https://a.b.example.com", ".example.com"],
    ["*.example.com", "https://api.example.com", "*.example.com"],
    ["example.com.", "https://api.example.com./", "example.com."],
    ["EXAMPLE.com", "https://Api.Example.COM", "EXAMPLE.com"],
    ["other.org,\texample.com", "https://example.com", "example.com"],
    ["other.org example.com", "https://example.com", "example.com"],
    ["example.com:8443", "https://example.com:8443", "example.com:8443"],
    ["example.com:8443", "https://example.com", undefined],
    ["example.com:443", "https://example.com", "example.com:443"],
    ["example.com:80", "http://api.example.com", "example.com:80"],
    ["127.1.2.3", "https://127.1.2.3", "127.1.2.3"],
    ["127.0.0.0/8", "https://127.200.3.4:8443", "127.0.0.0/8"],
    ["127.0.0.0/16", "https://127.1.0.1", undefined],
    ["127.1.2.3:8443", "https://127.1.2.3:8443", "127.1.2.3:8443"],
    ["127.1.2.3:8443", "https://127.1.2.3", undefined],
    ["127.0.0.0/33", "https://127.0.0.1", undefined],
    ["::1", "https://[::1]", "::1"],
    ["[::1]", "https://[::1]", "[::1]"],
    ["[::1]:8443", "https://[::1]:8443", "[::1]:8443"],
    ["[::1]:8443", "https://[::1]", undefined],
    ["::ffff:127.0.0.0/104", "https://[::ffff:127.9.0.2]", "::ffff:127.0.0.0/104"],
    ["::ffff:127.1.0.0/112", "https://[::ffff:127.9.0.2]", undefined],
    // An address entry never matches a name, nor a name entry an address.
    ["127.1.2.3", "https://ten.example", undefined],
    ["1.2.3", "https://127.1.2.3", undefined],
    [".", "https://example.com", undefined],
    ["", "https://example.com", undefined],
  ])("NO_PROXY=%j, %s: %s", (noProxy, url, entry) => {
    expect(noProxyMatch(noProxy, at(url))).toBe(entry);
  });
});
