/**
 * The bulk add's undici pool against real servers on 127.0.0.1: raw TCP ones
 * for answers and failures a well-behaved server would not produce, and a
 * node:https one with the test-only certificate for TLS.
 */
import { readFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createPoolTransport } from "../../src/bulk/pool-transport.js";
import type { TransportRequest } from "../../src/client/transport.js";
import { NetworkError, TimeoutError, TlsError, UsageError } from "../../src/errors.js";
import { REPO_ROOT } from "../server/cli-build.js";
import { unusedPort } from "../client/http-server.js";

const TLS_DIR = join(REPO_ROOT, "test", "fixtures", "tls");

let servers: Array<{ close(callback: () => void): void }> = [];
type PoolTransport = ReturnType<typeof createPoolTransport>;
let pools: PoolTransport[] = [];
afterEach(async () => {
  for (const pool of pools) pool.close();
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  servers = [];
  pools = [];
});

interface Raw {
  url: string;
  origin: string;
  connections: () => number;
  requests: string[];
}

/** A raw TCP server; `onRequest` gets each request's text (small requests: one read each). */
async function rawServer(
  onRequest: (socket: Socket, text: string, connection: number) => void,
): Promise<Raw> {
  let connections = 0;
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    const connection = ++connections;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("data", (data) => {
      requests.push(data.toString("latin1"));
      onRequest(socket, data.toString("latin1"), connection);
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push({
    close: (callback) => {
      for (const socket of sockets) socket.destroy();
      server.close(callback);
    },
  });
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { url: `${origin}/v1/pets`, origin, connections: () => connections, requests };
}

function pool(origin: string, connections = 1, timeoutMs = 2_000): PoolTransport {
  const created = createPoolTransport({ origin, connections, timeoutMs });
  pools.push(created);
  return created;
}

const post = (url: string, timeoutMs = 2_000, headers: Record<string, string> = {}) =>
  ({
    method: "POST",
    url,
    headers: { "content-type": "application/json", "content-length": "2", ...headers },
    body: "{}",
    timeoutMs,
  }) satisfies TransportRequest;

const created = (body = '{"id":1}', more = "") =>
  `HTTP/1.1 201 Created\r\nContent-Length: ${body.length}\r\n${more}\r\n${body}`;

describe("the bulk add's undici pool", () => {
  it("sends each request as written, reuses the connection, and reads the answer", async () => {
    const server = await rawServer((socket) =>
      socket.write(created('{"id":1}', "X-RateLimit-Remaining: 5\r\nX-A: 1\r\nx-a: 2\r\n")),
    );
    const { transport } = pool(server.origin);
    for (let i = 0; i < 3; i++) {
      const answer = await transport(post(server.url, 2_000, { authorization: "Bearer k" }));
      expect(answer).toEqual({
        status: 201,
        headers: expect.objectContaining({ "x-ratelimit-remaining": "5", "x-a": "1, 2" }),
        body: '{"id":1}',
      });
    }
    expect(server.connections()).toBe(1);
    const [first] = server.requests;
    expect(first).toMatch(/^POST \/v1\/pets HTTP\/1\.1\r\n/);
    expect(first).toMatch(/\r\nhost: 127\.0\.0\.1:\d+\r\n/i);
    expect(first).toContain("\r\nauthorization: Bearer k\r\n");
    expect(first).toContain("\r\ncontent-length: 2\r\n");
    expect(first).toMatch(/\r\n\r\n\{\}$/);
  });

  it("sends nothing to another origin than its own: the key goes to the base URL only", async () => {
    const server = await rawServer((socket) => socket.write(created()));
    const other = await rawServer((socket) => socket.write(created()));
    const { transport } = pool(server.origin);
    for (const url of [other.url, `${server.origin}.evil.example/v1/pets`]) {
      expect(() => transport(post(url))).toThrow(UsageError);
    }
    expect(await transport(post(server.url))).toMatchObject({ status: 201 });
    expect([server.requests.length, other.requests.length]).toEqual([1, 0]);
  });

  it("reads a chunked body", async () => {
    const server = await rawServer((socket) =>
      socket.write(
        'HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{"i\r\n5\r\nd":7}\r\n0\r\n\r\n',
      ),
    );
    const answer = await pool(server.origin).transport(post(server.url));
    expect(answer.status).toBe(201);
    expect(answer.body).toBe('{"id":7}');
  });

  it("says an answer that is not HTTP may have followed a request that was read", async () => {
    const server = await rawServer((socket) => socket.end("SMTP ready\r\n\r\n"));
    const error = await pool(server.origin)
      .transport(post(server.url))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).sent).toBe(true);
    expect((error as Error).message).toMatch(/^request to 127\.0\.0\.1:\d+ failed: \S/);
  });

  it("says a refused connection was not sent, in the client's words", async () => {
    const port = await unusedPort();
    const error = await pool(`http://127.0.0.1:${port}`)
      .transport(post(`http://127.0.0.1:${port}/v1/pets`))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).sent).toBe(false);
    expect((error as Error).message).toBe(
      `could not connect to 127.0.0.1:${port}: connection refused`,
    );
  });

  it("says a connection closed after the request, without an answer, may have been sent", async () => {
    const server = await rawServer((socket) => socket.destroy());
    const error = await pool(server.origin)
      .transport(post(server.url))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).sent).toBe(true);
    expect((error as Error).message).toMatch(/^127\.0\.0\.1:\d+ reset the connection$/);
  });

  it("times out a silent service, and says the request was sent", async () => {
    const server = await rawServer(() => {});
    const error = await pool(server.origin)
      .transport(post(server.url, 200))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).sent).toBe(true);
    expect((error as Error).message).toMatch(
      /^no complete answer from 127\.0\.0\.1:\d+ within 0\.2 s$/,
    );
  });

  it("times out a TLS handshake that never ends as not sent, and never sends it later", async () => {
    // A TCP server that never speaks: the handshake of an https:// request never completes.
    const server = await rawServer(() => {});
    const origin = server.origin.replace("http:", "https:");
    const error = await pool(origin, 1, 200)
      .transport(post(`${origin}/v1/pets`, 200))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).sent).toBe(false);
    expect((error as Error).message).toMatch(
      /^could not connect from 127\.0\.0\.1:\d+ within 0\.2 s$/,
    );
  });

  it("never sends later a request it gave up on while it waited for a connection", async () => {
    const server = await rawServer((socket) => setTimeout(() => socket.write(created()), 600));
    const { transport } = pool(server.origin, 1);
    const first = transport(post(server.url, 300)).catch((e: unknown) => e);
    // The only connection is busy: this one waits in the pool, and gives up first.
    const second = await transport(post(server.url, 100)).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(TimeoutError);
    expect((second as TimeoutError).sent).toBe(false);
    expect(await first).toBeInstanceOf(TimeoutError);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.requests).toHaveLength(1);
  });

  it("does not reuse a connection after Connection: close", async () => {
    const server = await rawServer((socket, _text, connection) =>
      socket.end(created(String(connection), "Connection: close\r\n")),
    );
    const { transport } = pool(server.origin, 2);
    const bodies = [];
    for (let i = 0; i < 3; i++) bodies.push((await transport(post(server.url))).body);
    expect(bodies).toEqual(["1", "2", "3"]);
    expect(server.connections()).toBe(3);
  });

  it("holds requests beyond its connections until one comes free", async () => {
    const server = await rawServer((socket) => setTimeout(() => socket.write(created("ok")), 20));
    const { transport } = pool(server.origin, 2);
    const answers = await Promise.all(Array.from({ length: 6 }, () => transport(post(server.url))));
    expect(answers.map((a) => a.body)).toEqual(Array(6).fill("ok"));
    expect(server.connections()).toBe(2);
  });

  it("refuses an answer larger than 1 MiB, one byte past it", async () => {
    const big = "x".repeat(1024 * 1024 + 1);
    const server = await rawServer((socket) => socket.write(created(big)));
    const error = await pool(server.origin)
      .transport(post(server.url))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).sent).toBe(true);
    expect((error as Error).message).toMatch(/is larger than 1 MiB$/);
    const exact = await rawServer((socket) => socket.write(created(big.slice(1))));
    const answer = await pool(exact.origin).transport(post(exact.url));
    expect(answer.body.length).toBe(1024 * 1024);
  });

  it("refuses a header it cannot write as a usage error, before anything leaves", async () => {
    const server = await rawServer((socket) => socket.write(created()));
    const error = await pool(server.origin)
      .transport(post(server.url, 2_000, { authorization: "Bearer a\r\nx-evil: 1" }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(server.requests).toEqual([]);
  });

  it("fails a certificate it does not trust with the TLS wording and hint, not sent", async () => {
    const tls = createHttpsServer(
      {
        key: readFileSync(join(TLS_DIR, "localhost.key")),
        cert: readFileSync(join(TLS_DIR, "localhost.crt")),
      },
      (_req, res) => res.end("{}"),
    );
    await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", resolve));
    servers.push(tls);
    const origin = `https://127.0.0.1:${(tls.address() as { port: number }).port}`;
    const error = await pool(origin)
      .transport(post(`${origin}/v1/pets`))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TlsError);
    expect((error as TlsError).sent).toBe(false);
    expect((error as Error).message).toMatch(
      /^TLS connection to 127\.0\.0\.1:\d+ failed: .*certificate/,
    );
    expect((error as TlsError).hint).toContain("NODE_EXTRA_CA_CERTS");
  });
});
