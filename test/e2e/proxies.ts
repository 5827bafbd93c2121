/**
 * What the proxy tests share: a certificate authority and a certificate for the
 * test's host names, `petstore serve` over https on them, an in-process HTTP
 * proxy (CONNECT tunnels and plain requests) that requires credentials, and the
 * preload that keeps `.test` names away from any DNS server.
 *
 * The host names exist only here: `pets.proxied.test` only the test's proxy can
 * reach (it maps it to 127.0.0.1), `pets.direct.test` only the CLI itself
 * (test-hosts.cjs maps it to 127.0.0.1 in the CLI's process). A client that
 * ignored the proxy could not connect anywhere; no traffic leaves loopback.
 */
import { readFileSync, writeFileSync } from "node:fs";
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from "node:http";
import { request as httpsRequest } from "node:https";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { expect } from "vitest";
import { parseJson } from "../../src/schema/json.js";
import { makeCa, makeServerCertificate } from "../../src/server/tls/make-certificates.js";
import { REPO_ROOT } from "../server/cli-build.js";
import { startServe, type Serve } from "../server/serve-process.js";
import { PRO_KEY, type CliResult } from "./harness.js";

export const PROXIED_HOST = "pets.proxied.test";
export const DIRECT_HOST = "pets.direct.test";
export const TEST_HOSTS = join(REPO_ROOT, "test", "fixtures", "proxy", "test-hosts.cjs");

/** The CLI's environment for every proxy test: no DNS for `.test`, DIRECT_HOST on loopback. */
export const RESOLVER_ENV = {
  NODE_OPTIONS: `--require=${TEST_HOSTS}`,
  PETSTORE_TEST_HOSTS: `${DIRECT_HOST}=127.0.0.1`,
};

/** Neither stdout nor stderr holds any of `secrets`. */
export function expectNoneShown(run: CliResult, secrets: readonly string[]): void {
  for (const secret of secrets) expect(run.stdout + run.stderr).not.toContain(secret);
}

export interface TlsFiles {
  ca: string;
  cert: string;
  key: string;
}

/** A CA, and a certificate it signs for both test names and 127.0.0.1, written to `dir`. */
export async function writeTestCertificates(dir: string): Promise<TlsFiles> {
  const now = new Date();
  const notAfter = new Date(Date.now() + 86_400_000);
  const ca = await makeCa("petstore proxy tests", now, notAfter);
  const names = [PROXIED_HOST, DIRECT_HOST, "127.0.0.1"];
  const server = await makeServerCertificate(ca, names, now, notAfter);
  const files = {
    ca: join(dir, "ca.crt"),
    cert: join(dir, "server.crt"),
    key: join(dir, "server.key"),
  };
  writeFileSync(files.ca, ca.cert);
  writeFileSync(files.cert, server.cert);
  writeFileSync(files.key, server.key, { mode: 0o600 });
  return files;
}

/** `petstore serve` on 127.0.0.1, over https when `tls` is given; its port. */
export async function serveOn(
  dir: string,
  tls: TlsFiles | undefined,
): Promise<{ serve: Serve; port: number }> {
  const args = ["--file", join(dir, "pets.json"), "--port", "0", "--key", `${PRO_KEY}:pro`];
  if (tls !== undefined) args.push("--tls-cert", tls.cert, "--tls-key", tls.key);
  const serve = await startServe([...args, "--quiet"], { cwd: dir }, 1);
  const port = /:(\d+)\/v1$/.exec(serve.lines[0]!)?.[1];
  if (port === undefined) throw new Error(`no URL in ${serve.lines[0]}`);
  return { serve, port: Number(port) };
}

/** What the service saw, from its request journal (GET /__admin/requests). */
export async function journal(
  port: number,
  tls: TlsFiles | undefined,
): Promise<
  Array<{ id: number; method: string; path: string; status: number; plan: string | null }>
> {
  const url = `${tls === undefined ? "http" : "https"}://127.0.0.1:${port}/__admin/requests`;
  const text = await new Promise<string>((resolve, reject) => {
    const answer = (res: IncomingMessage) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve(body));
    };
    const req =
      tls === undefined
        ? httpRequest(url, answer)
        : httpsRequest(url, { ca: readFileSync(tls.ca) }, answer);
    req.on("error", reject);
    req.end();
  });
  const { requests } = parseJson(text) as {
    requests: Array<{
      id: bigint;
      method: string;
      path: string;
      status: bigint;
      plan: string | null;
    }>;
  };
  return requests.map((r) => ({ ...r, id: Number(r.id), status: Number(r.status) }));
}

export interface SeenByProxy {
  method: string;
  /** `host:port` of a CONNECT, the absolute URL of a plain request. */
  target: string;
  /** Proxy-Authorization, decoded from base64 (`user:password`). */
  credentials: string | undefined;
}

export interface TestProxy {
  url: string;
  port: number;
  seen: SeenByProxy[];
  close(): Promise<void>;
}

export interface TestProxyOptions {
  /** `user:password` the proxy requires; none when undefined. */
  credentials?: string;
  /** Names the proxy reaches, each on 127.0.0.1. */
  hosts: readonly string[];
  /** Close every connection as soon as the request has arrived. */
  hangUp?: boolean;
}

function credentialsOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers["proxy-authorization"];
  const basic = value === undefined ? null : /^Basic (.*)$/i.exec(value);
  return basic === null ? value : Buffer.from(basic[1]!, "base64").toString("utf8");
}

const AUTH_REQUIRED =
  'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n';

/**
 * An HTTP proxy in this process, on 127.0.0.1: CONNECT tunnels and plain
 * (absolute-form) requests, to `hosts` only, each mapped to 127.0.0.1.
 */
export async function startTestProxy(options: TestProxyOptions): Promise<TestProxy> {
  const seen: SeenByProxy[] = [];
  const sockets = new Set<Socket>();
  const allowed = (headers: IncomingHttpHeaders) =>
    options.credentials === undefined || credentialsOf(headers) === options.credentials;
  const hostOf = (target: string) => {
    const match = /^(.*):(\d+)$/.exec(target);
    return match === null || !options.hosts.includes(match[1]!.toLowerCase())
      ? undefined
      : Number(match[2]);
  };

  const server = createServer((req, res) => {
    seen.push({
      method: req.method ?? "",
      target: req.url ?? "",
      credentials: credentialsOf(req.headers),
    });
    if (options.hangUp) return void req.socket.destroy();
    if (!allowed(req.headers)) {
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="test"' }).end();
      return;
    }
    const url = new URL(req.url ?? "");
    const port = hostOf(url.host.includes(":") ? url.host : `${url.host}:80`);
    if (url.protocol !== "http:" || port === undefined) return void res.writeHead(502).end();
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    const upstream = httpRequest(
      { host: "127.0.0.1", port, method: req.method, path: url.pathname + url.search, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("connect", (req, client: Socket, head: Buffer) => {
    const target = req.url ?? "";
    seen.push({ method: "CONNECT", target, credentials: credentialsOf(req.headers) });
    client.on("error", () => {});
    if (options.hangUp) return void client.destroy();
    if (!allowed(req.headers)) return void client.end(AUTH_REQUIRED);
    const port = hostOf(target);
    if (port === undefined) {
      return void client.end("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
    }
    const upstream = connect(port, "127.0.0.1", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
