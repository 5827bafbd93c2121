/**
 * The CLI behind a real proxy: Debian's squid on 127.0.0.1 (squid.ts), with basic
 * authentication, the only way to the service's name, pets.proxied.test. An
 * https `petstore serve` is reached through CONNECT tunnels (list, add, 30 rows of
 * add --from, auth login with the key checked); an http one, with
 * --allow-insecure, by asking squid for the URL, as curl does.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/errors.js";
import { parseJson } from "../../src/schema/json.js";
import { killServes } from "../server/serve-process.js";
import { PRO_KEY, runCli, tempDir, writeNdjsonRows, type CliResult } from "./harness.js";
import {
  expectNoneShown,
  journal,
  PROXIED_HOST,
  RESOLVER_ENV,
  serveOn,
  writeTestCertificates,
  type TlsFiles,
} from "./proxies.js";
import { startSquid, type Squid } from "./squid.js";

const USER = "kennel";
const PASSWORD = "squid:p@ss w0rd";

let home: ReturnType<typeof tempDir>;
let tls: TlsFiles;
let httpsPort: number;
let httpPort: number;
let squid: Squid;

beforeAll(async () => {
  home = tempDir();
  tls = await writeTestCertificates(home.path);
  const plainDir = join(home.path, "plain");
  mkdirSync(plainDir);
  [{ port: httpsPort }, { port: httpPort }, squid] = await Promise.all([
    serveOn(home.path, tls),
    serveOn(plainDir, undefined),
    startSquid({ user: USER, password: PASSWORD, hosts: [PROXIED_HOST] }),
  ]);
});

afterAll(async () => {
  killServes();
  await squid?.stop();
  home?.remove();
});

function proxyUrl(password = PASSWORD): string {
  return `http://${USER}:${encodeURIComponent(password)}@127.0.0.1:${squid.port}`;
}

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PETSTORE_BASE_URL: `https://${PROXIED_HOST}:${httpsPort}/v1`,
    PETSTORE_API_KEY: PRO_KEY,
    PETSTORE_CONFIG_DIR: home.path,
    NO_COLOR: "1",
    NODE_EXTRA_CA_CERTS: tls.ca,
    HTTPS_PROXY: proxyUrl(),
    ...RESOLVER_ENV,
    ...extra,
  };
}

const expectNoSecret = (run: CliResult) =>
  expectNoneShown(run, [PASSWORD, encodeURIComponent(PASSWORD), PRO_KEY]);

/** squid's access-log lines for `target` (a CONNECT's host:port, or a URL's start). */
function logged(target: string): string[] {
  return squid
    .accessLog()
    .split("\n")
    .filter((line) => line.includes(` ${target}`));
}

function rows(name: string, count: number): string {
  return writeNdjsonRows(home.path, name, count, "squid");
}

describe("through squid with basic authentication, to an https service only squid can reach", () => {
  const tunnel = () => `${PROXIED_HOST}:${httpsPort}`;

  it("`list`, `add` and 30 rows of `add --from` go through CONNECT tunnels", async () => {
    const added = await runCli(["add", "--name", "Squiddy", "--category-id", "2", "--json"], {
      env: env(),
    });
    expect(added.code, added.stderr).toBe(0);
    const listed = await runCli(["list", "--json"], { env: env() });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('"name":"Squiddy"');
    const bulk = await runCli(["add", "--from", rows("thirty.ndjson", 30), "--concurrency", "4"], {
      env: env(),
    });
    expect(bulk.code, bulk.stderr).toBe(0);
    expect(bulk.stderr).toContain("30 added");

    const tunnels = logged(tunnel());
    expect(tunnels.length).toBeGreaterThanOrEqual(3);
    expect(tunnels.every((line) => / TCP_TUNNEL\/200 .* CONNECT /.test(line))).toBe(true);
    expect(tunnels.every((line) => line.includes(` ${USER} HIER_DIRECT/127.0.0.1 `))).toBe(true);
    const posts = (await journal(httpsPort, tls)).filter(
      (r) => r.method === "POST" && r.status === 201 && r.plan === "pro",
    );
    expect(posts).toHaveLength(31);
  });

  it("`auth login` checks the key through squid before storing it", async () => {
    const config = tempDir();
    try {
      const loginEnv = env({ PETSTORE_CONFIG_DIR: config.path, PETSTORE_API_KEY: undefined });
      const before = logged(tunnel()).length;
      const login = await runCli(["auth", "login", "--with-token"], {
        env: loginEnv,
        stdin: PRO_KEY,
      });
      expect(login.code, login.stderr).toBe(0);
      expect(login.stderr).toContain("The service accepted the key.");
      expect(logged(tunnel()).length).toBe(before + 1);
      const wrongKey = await runCli(["auth", "login", "--with-token"], {
        env: loginEnv,
        stdin: "not-the-key-0000",
      });
      expect(wrongKey.code, wrongKey.stderr).toBe(EXIT.AUTH);
      // The refused key was not stored: the profile keeps the one squid let through.
      const stored = readFileSync(join(config.path, "config.json"), "utf8");
      expect(stored).toContain(PRO_KEY);
      expect(stored).not.toContain("not-the-key-0000");
      expectNoSecret(login);
    } finally {
      config.remove();
    }
  });

  it("a wrong password fails with exit 8 naming squid, without the key or the password", async () => {
    const before = (await journal(httpsPort, tls)).length;
    for (const args of [
      ["list", "--verbose", "--debug"],
      ["add", "--from", rows("no.ndjson", 5)],
    ]) {
      const run = await runCli(args, { env: env({ HTTPS_PROXY: proxyUrl("not the password") }) });
      expect(run.code, run.stderr).toBe(EXIT.PROXY);
      expect(run.stderr).toContain(
        `the proxy http://127.0.0.1:${squid.port} (from HTTPS_PROXY) refused the credentials (407 Proxy Authentication Required)`,
      );
      expectNoSecret(run);
      expect(run.stdout + run.stderr).not.toContain("not the password");
    }
    expect(logged(tunnel()).some((line) => line.includes("TCP_DENIED/407"))).toBe(true);
    expect(await journal(httpsPort, tls)).toHaveLength(before);
  });
});

describe("through squid, to a plain http service (--allow-insecure)", () => {
  const plainEnv = (extra: NodeJS.ProcessEnv) =>
    env({
      PETSTORE_BASE_URL: `http://${PROXIED_HOST}:${httpPort}/v1`,
      PETSTORE_ALLOW_INSECURE: "1",
      HTTPS_PROXY: undefined,
      ...extra,
    });

  it("http_proxy sends each request to squid, as curl does: no tunnel", async () => {
    const run = await runCli(["list", "--json", "--verbose"], {
      env: plainEnv({ http_proxy: proxyUrl() }),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(parseJson(run.stdout)).toEqual([]);
    expect(run.stderr).toContain(
      `proxy: http://127.0.0.1:${squid.port} (from http_proxy, with credentials), plain http`,
    );
    const bulk = await runCli(["add", "--from", rows("plain.ndjson", 5)], {
      env: plainEnv({ http_proxy: proxyUrl() }),
    });
    expect(bulk.code, bulk.stderr).toBe(0);
    const url = `http://${PROXIED_HOST}:${httpPort}/v1/pets`;
    expect(logged(url).filter((line) => / TCP_MISS\/201 \d+ POST /.test(line))).toHaveLength(5);
    expect(logged(`${PROXIED_HOST}:${httpPort}`)).toEqual([]);
  });

  it("a wrong password through plain http is exit 8 too", async () => {
    const run = await runCli(["add", "--name", "Rex", "--category-id", "1"], {
      env: plainEnv({ http_proxy: proxyUrl("wrong") }),
    });
    expect(run.code, run.stderr).toBe(EXIT.PROXY);
    expect(run.stderr).toContain("refused the credentials (407 Proxy Authentication Required)");
    expectNoSecret(run);
  });

  it("the upper-case HTTP_PROXY is not read, as curl does not read it, and --verbose says so", async () => {
    const run = await runCli(["list", "--verbose"], {
      env: plainEnv({ HTTP_PROXY: proxyUrl() }),
    });
    // Direct, so the name only squid knows does not resolve.
    expect(run.code, run.stderr).toBe(EXIT.NETWORK);
    expect(run.stderr).toContain("proxy: none: HTTP_PROXY is not read (as curl does not read it)");
    expect(run.stderr).toContain(`the host ${PROXIED_HOST} was not found`);
  });
});
