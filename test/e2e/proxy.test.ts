/**
 * The CLI behind a proxy, end to end: the real CLI against a real `petstore serve
 * --tls` on 127.0.0.1, through an in-process proxy that requires credentials
 * (proxies.ts). The service's name, pets.proxied.test, only the proxy can reach:
 * a CLI that went direct would fail to resolve it. The squid tests (squid.test.ts)
 * repeat the main cases through a real proxy.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/errors.js";
import { parseJson } from "../../src/schema/json.js";
import { killServes } from "../server/serve-process.js";
import {
  closedPortUrl,
  PRO_KEY,
  runCli,
  tempDir,
  writeNdjsonRows,
  type CliResult,
} from "./harness.js";
import {
  DIRECT_HOST,
  expectNoneShown,
  journal,
  PROXIED_HOST,
  RESOLVER_ENV,
  serveOn,
  startTestProxy,
  writeTestCertificates,
  type TestProxy,
  type TlsFiles,
} from "./proxies.js";
import { HANG_MS } from "../limits.js";

const USER = "shelter-staff";
/** Every character that must be %-encoded in a URL's userinfo, and one that is not ASCII. */
const PASSWORD = "s3cr3t:p@ss/wörd";
const CREDENTIALS = `${USER}:${PASSWORD}`;
const ENCODED = `${USER}:${encodeURIComponent(PASSWORD)}`;
const SECRETS = [
  PASSWORD,
  encodeURIComponent(PASSWORD),
  Buffer.from(CREDENTIALS).toString("base64"),
  Buffer.from(`${USER}:wrong-password`).toString("base64"),
  "wrong-password",
  PRO_KEY,
];

let home: ReturnType<typeof tempDir>;
let tls: TlsFiles;
let port: number;
let proxy: TestProxy;
let baseUrl: string;

beforeAll(async () => {
  home = tempDir();
  tls = await writeTestCertificates(home.path);
  ({ port } = await serveOn(home.path, tls));
  baseUrl = `https://${PROXIED_HOST}:${port}/v1`;
  proxy = await startTestProxy({ credentials: CREDENTIALS, hosts: [PROXIED_HOST] });
});

afterAll(async () => {
  killServes();
  await proxy?.close();
  home?.remove();
});

beforeEach(() => {
  proxy.seen.length = 0;
});

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PETSTORE_BASE_URL: baseUrl,
    PETSTORE_API_KEY: PRO_KEY,
    PETSTORE_CONFIG_DIR: home.path,
    NO_COLOR: "1",
    NODE_EXTRA_CA_CERTS: tls.ca,
    HTTPS_PROXY: `http://${ENCODED}@127.0.0.1:${proxy.port}`,
    ...RESOLVER_ENV,
    ...extra,
  };
}

/** DEBUG=*: the proxy agent's own debug output must not show the password either. */
const withWrongPassword = () =>
  env({ HTTPS_PROXY: `http://${USER}:wrong-password@127.0.0.1:${proxy.port}`, DEBUG: "*" });

const expectNoSecret = (run: CliResult) => expectNoneShown(run, SECRETS);

function tunnels(): string[] {
  return proxy.seen.filter((seen) => seen.method === "CONNECT").map((seen) => seen.target);
}

function rows(name: string, count: number): string {
  return writeNdjsonRows(home.path, name, count, "proxied");
}

/** The service's requests since `since` of them, by method and path. */
async function servedSince(since: number) {
  return (await journal(port, tls)).filter((request) => request.id > since);
}

async function lastServedId(): Promise<number> {
  const requests = await journal(port, tls);
  return requests.length === 0 ? 0 : Math.max(...requests.map((request) => request.id));
}

describe("through a proxy that requires credentials, to an https service only it can reach", () => {
  it("`list`, `add` and `get` go through a CONNECT tunnel with the credentials decoded, the key checked by the service", async () => {
    const since = await lastServedId();
    const added = await runCli(["add", "--name", "Tunnel", "--category-id", "3", "--json"], {
      env: env(),
    });
    expect(added.code, added.stderr).toBe(0);
    const id = (parseJson(added.stdout) as { id: bigint }).id;
    const got = await runCli(["get", String(id), "--json"], { env: env() });
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toContain('"name":"Tunnel"');
    const listed = await runCli(["list", "--json"], { env: env() });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('"name":"Tunnel"');

    expect(tunnels()).toEqual(Array(3).fill(`${PROXIED_HOST}:${port}`));
    expect(proxy.seen.every((seen) => seen.credentials === CREDENTIALS)).toBe(true);
    const served = await servedSince(since);
    expect(served.map((r) => `${r.method} ${r.path} ${r.status} ${r.plan}`)).toEqual([
      "POST /v1/pets 201 pro",
      `GET /v1/pets/${id} 200 pro`,
      "GET /v1/pets 200 pro",
    ]);
  });

  it("`add --from` sends 30 rows through at most --concurrency tunnels", async () => {
    const since = await lastServedId();
    const results = join(home.path, "thirty.results");
    const run = await runCli(
      ["add", "--from", rows("thirty.ndjson", 30), "--results", results, "--concurrency", "4"],
      { env: env() },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("30 added");
    const posts = (await servedSince(since)).filter((r) => r.method === "POST" && r.status === 201);
    expect(posts).toHaveLength(30);
    expect(tunnels().length).toBeGreaterThan(0);
    expect(tunnels().length).toBeLessThanOrEqual(4);
    expect(new Set(tunnels())).toEqual(new Set([`${PROXIED_HOST}:${port}`]));
  });

  it("`auth login` checks the key through the tunnel; `auth status` says which proxy, without its password", async () => {
    const config = tempDir();
    try {
      const loginEnv = env({ PETSTORE_CONFIG_DIR: config.path, PETSTORE_API_KEY: undefined });
      const login = await runCli(["auth", "login", "--with-token"], {
        env: loginEnv,
        stdin: PRO_KEY,
      });
      expect(login.code, login.stderr).toBe(0);
      expect(login.stderr).toContain("The service accepted the key.");
      expect(tunnels()).toEqual([`${PROXIED_HOST}:${port}`]);

      const status = await runCli(["auth", "status"], { env: loginEnv });
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toContain(
        `Proxy:       http://127.0.0.1:${proxy.port} (from HTTPS_PROXY, with credentials), a CONNECT tunnel to ${PROXIED_HOST}:${port}\n`,
      );
      expect(status.stdout).toContain("Key:         accepted");
      const json = await runCli(["auth", "status", "--json"], { env: loginEnv });
      expect(json.code, json.stderr).toBe(0);
      expect((parseJson(json.stdout) as { proxy: unknown }).proxy).toEqual({
        url: `http://127.0.0.1:${proxy.port}`,
        from: "HTTPS_PROXY",
        credentials: true,
        tunnel: true,
      });
      for (const run of [login, status, json]) expectNoSecret(run);
    } finally {
      config.remove();
    }
  });

  it("NO_PROXY sends a host direct, and --verbose says which entry did", async () => {
    const direct = env({
      PETSTORE_BASE_URL: `https://${DIRECT_HOST}:${port}/v1`,
      NO_PROXY: `localhost, .${DIRECT_HOST.split(".").slice(1).join(".")}`,
    });
    const run = await runCli(["list", "--json", "--verbose"], { env: direct });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      `proxy: none: NO_PROXY entry ".direct.test" sends ${DIRECT_HOST} direct (HTTPS_PROXY is set)\n`,
    );
    const bulk = await runCli(["add", "--from", rows("direct.ndjson", 3)], { env: direct });
    expect(bulk.code, bulk.stderr).toBe(0);
    expect(proxy.seen).toEqual([]);

    // The same host without NO_PROXY goes to the proxy, which cannot reach it.
    const proxied = await runCli(["list"], { env: { ...direct, NO_PROXY: undefined } });
    expect(proxied.code, proxied.stderr).toBe(EXIT.PROXY);
    expect(proxied.stderr).toContain(
      `could not reach ${DIRECT_HOST}:${port} (it answered 502 to CONNECT)`,
    );
    expect(tunnels()).toEqual([`${DIRECT_HOST}:${port}`]);
  });

  it("a loopback base URL goes direct whatever HTTPS_PROXY says", async () => {
    const dead = new URL(await closedPortUrl()).port;
    const run = await runCli(["list", "--json", "--verbose"], {
      env: env({
        PETSTORE_BASE_URL: `https://127.0.0.1:${port}/v1`,
        HTTPS_PROXY: `http://127.0.0.1:${dead}`,
      }),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("proxy: none: 127.0.0.1 is this machine, always reached direct");
  });

  it("a certificate refused through the tunnel is the service's TLS failure: exit 6, no add 'outcome unknown'", async () => {
    for (const args of [["list"], ["add", "--name", "Rex", "--category-id", "1"]]) {
      const run = await runCli(args, { env: env({ NODE_EXTRA_CA_CERTS: undefined }) });
      expect(run.code, run.stderr).toBe(EXIT.NETWORK);
      expect(run.stderr).toContain(`TLS connection to ${PROXIED_HOST}:${port} failed`);
      expect(run.stderr).toContain("NODE_EXTRA_CA_CERTS");
    }
    const bulk = await runCli(
      ["add", "--from", rows("untrusted.ndjson", 3), "--concurrency", "1"],
      {
        env: env({ NODE_EXTRA_CA_CERTS: undefined }),
      },
    );
    expect(bulk.code, bulk.stderr).toBe(EXIT.NETWORK);
    expect(bulk.stderr).toContain(`TLS connection to ${PROXIED_HOST}:${port} failed`);
    expect(bulk.stderr).toContain("0 outcome unknown");
    // Not retried: one tunnel for each command (a lasting TLS failure).
    expect(tunnels()).toHaveLength(3);
  });

  it("https_proxy wins over HTTPS_PROXY, as in curl", async () => {
    const dead = new URL(await closedPortUrl()).port;
    const run = await runCli(["list", "--json"], {
      env: env({
        https_proxy: `http://${ENCODED}@127.0.0.1:${proxy.port}`,
        HTTPS_PROXY: `http://127.0.0.1:${dead}`,
      }),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(tunnels()).toEqual([`${PROXIED_HOST}:${port}`]);
  });
});

describe("a proxy that refuses or cannot be reached (exit 8, never retried)", () => {
  const proxyName = () => `the proxy http://127.0.0.1:${proxy.port} (from HTTPS_PROXY)`;

  // Seven runs of the CLI: a longer hang detector than one run's.
  it(
    "a wrong password: every command fails naming the proxy, showing neither the key nor the password",
    async () => {
      const since = await lastServedId();
      const config = tempDir();
      const runs: Array<[string, CliResult, number]> = [];
      const run = async (
        label: string,
        args: string[],
        stdin?: string,
        extra: NodeJS.ProcessEnv = {},
      ) => {
        proxy.seen.length = 0;
        const result = await runCli(args, { env: { ...withWrongPassword(), ...extra }, stdin });
        runs.push([label, result, tunnels().length]);
      };
      try {
        await run("list", ["list", "--verbose", "--debug"]);
        await run("add", ["add", "--name", "Rex", "--category-id", "1", "--verbose", "--debug"]);
        await run("get", ["get", "1", "--verbose", "--debug"]);
        await run("add --from", [
          "add",
          "--from",
          rows("refused.ndjson", 30),
          "--verbose",
          "--debug",
          "--concurrency",
          "4",
        ]);
        await run("auth status", ["auth", "status", "--verbose", "--debug"]);
        await run("auth status --json", ["auth", "status", "--json", "--debug"]);
        await run("auth login", ["auth", "login", "--with-token", "--debug"], PRO_KEY, {
          PETSTORE_CONFIG_DIR: config.path,
          PETSTORE_API_KEY: undefined,
        });
        for (const [label, result, count] of runs) {
          expect(result.code, `${label}: ${result.stderr}`).toBe(EXIT.PROXY);
          expect(result.stderr, label).toContain(
            `${proxyName()} refused the credentials (407 Proxy Authentication Required)`,
          );
          expect(result.stderr, label).toContain(
            "hint: check the user name and password in HTTPS_PROXY",
          );
          expect(result.stderr, label).not.toContain("retrying");
          expectNoSecret(result);
          // One tunnel asked for each request; a bulk add stops at its first rows.
          expect(count, label).toBeGreaterThanOrEqual(1);
          expect(count, label).toBeLessThanOrEqual(label === "add --from" ? 4 : 1);
        }
        expect(existsSync(join(config.path, "config.json"))).toBe(false);
        expect(await servedSince(since)).toEqual([]);
      } finally {
        config.remove();
      }
    },
    2 * HANG_MS,
  );

  it("no credentials: the 407 says how to give them", async () => {
    const run = await runCli(["list"], { env: env({ HTTPS_PROXY: `127.0.0.1:${proxy.port}` }) });
    expect(run.code, run.stderr).toBe(EXIT.PROXY);
    expect(run.stderr).toContain(
      `${proxyName()} asks for credentials (407 Proxy Authentication Required)`,
    );
    expect(run.stderr).toContain("http://user:password@host:port");
  });

  it("a proxy that is not there, one whose host does not exist, one that hangs up: exit 8 naming it, a POST not 'outcome unknown'", async () => {
    const dead = new URL(await closedPortUrl()).port;
    const hangUp = await startTestProxy({ hosts: [PROXIED_HOST], hangUp: true });
    try {
      const cases: Array<[string, string]> = [
        [
          `http://${ENCODED}@127.0.0.1:${dead}`,
          `could not connect to the proxy http://127.0.0.1:${dead} (from HTTPS_PROXY): connection refused`,
        ],
        [
          `http://${ENCODED}@proxy.nowhere.test:3128`,
          "could not connect to the proxy http://proxy.nowhere.test:3128 (from HTTPS_PROXY): its host proxy.nowhere.test was not found",
        ],
        [
          `http://${ENCODED}@127.0.0.1:${hangUp.port}`,
          `the proxy http://127.0.0.1:${hangUp.port} (from HTTPS_PROXY) closed the connection before the request reached ${PROXIED_HOST}:${port}`,
        ],
      ];
      const from = rows("unreachable.ndjson", 3);
      const commands = [
        ["list"],
        ["add", "--name", "Rex", "--category-id", "1"],
        // undici would connect again and again to a proxy that hangs up, were its error left as it is.
        ["add", "--from", from, "--concurrency", "1"],
      ];
      for (const [url, message] of cases) {
        for (const args of commands) {
          const run = await runCli(args, { env: env({ HTTPS_PROXY: url }) });
          expect(run.code, run.stderr).toBe(EXIT.PROXY);
          expect(run.stderr).toContain(message);
          expect(run.stderr).not.toMatch(/retrying|is unknown/);
          expectNoSecret(run);
        }
      }
      expect(hangUp.seen.map((seen) => seen.method)).toEqual(["CONNECT", "CONNECT", "CONNECT"]);
    } finally {
      await hangUp.close();
    }
  });
});

describe("a proxy variable petstore cannot use (exit 2, before anything is sent)", () => {
  const cases: Array<[string, string, string]> = [
    [
      "HTTPS_PROXY",
      `socks5://${ENCODED}@127.0.0.1:1080`,
      "names a socks5:// proxy; petstore speaks only to http:// proxies",
    ],
    ["https_proxy", `https://${ENCODED}@127.0.0.1:3128`, "names a https:// proxy"],
    [
      "HTTPS_PROXY",
      `http://${USER}:${encodeURIComponent(PASSWORD)}%zz@127.0.0.1:3128`,
      "has a user name or password with a broken %-escape",
    ],
    // A port out of range: no URL, and no name to look up.
    ["HTTPS_PROXY", `http://${ENCODED}@127.0.0.1:99999`, "is not a proxy URL petstore can read"],
  ];
  for (const [variable, value, problem] of cases) {
    it(`${variable}=${value.replace(/\/\/.*@/, "//…@")}: ${problem}`, async () => {
      const results = join(home.path, "never.results");
      for (const args of [
        ["list"],
        ["add", "--from", rows("never.ndjson", 2), "--results", results],
      ]) {
        const run = await runCli(args, { env: env({ HTTPS_PROXY: undefined, [variable]: value }) });
        expect(run.code, run.stderr).toBe(EXIT.USAGE);
        expect(run.stderr).toContain(`error: ${variable} ${problem}`);
        expectNoSecret(run);
      }
      expect(existsSync(results)).toBe(false);
      expect(proxy.seen).toEqual([]);
    });
  }

  it("`auth login` refuses it before reading the key", async () => {
    const config = tempDir();
    try {
      const run = await runCli(["auth", "login", "--with-token"], {
        env: env({ PETSTORE_CONFIG_DIR: config.path, HTTPS_PROXY: "socks5://127.0.0.1:1080" }),
        stdin: "",
      });
      expect(run.code, run.stderr).toBe(EXIT.USAGE);
      expect(run.stderr).toContain("error: HTTPS_PROXY names a socks5:// proxy");
    } finally {
      config.remove();
    }
  });
});
