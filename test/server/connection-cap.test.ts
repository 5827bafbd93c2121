/**
 * The connection cap: idle sockets past it are closed, the longest idle first,
 * so a normal client keeps being answered; requests in flight are never cut.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { connect as connectTls, type TLSSocket } from "node:tls";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { defaultMaxConnections } from "../../src/server/connection-cap.js";
import { startServer } from "../../src/server/server.js";
import { BIN, ensureBuilt } from "./cli-build.js";
import { call, startTestServer, type Answer } from "./http.js";

const KEY = "cap-key";
let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
const sockets: Socket[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "petstore-cap-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  await server?.close();
  server = undefined;
});

/** Opens `count` connections that send nothing; resolves once all are connected or closed. */
async function openIdle(port: number, count: number): Promise<Socket[]> {
  const opened: Socket[] = [];
  for (let i = 0; i < count; i++) {
    const socket = connect(port, "127.0.0.1");
    socket.on("error", () => {});
    sockets.push(socket);
    opened.push(socket);
    await new Promise<void>((resolve) => {
      socket.once("connect", () => resolve());
      socket.once("close", () => resolve());
    });
  }
  return opened;
}

/** Lets the server's closing of sockets reach the client side. */
async function settled(opened: Socket[]): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 200));
  return opened.filter((socket) => socket.readyState !== "open" || socket.readableEnded).length;
}

function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref(),
    ),
  ]);
}

describe("the connection cap", () => {
  it("closes idle sockets past the cap, and a normal GET still gets its 200", async () => {
    server = await startTestServer({ keys: [KEY], maxConnections: 50 });
    const idle = await openIdle(server.port, 200);
    const closed = await settled(idle);
    // At most the cap stays open; the newest connections are the ones kept.
    expect(closed).toBeGreaterThanOrEqual(150);
    expect(idle.slice(-20).every((socket) => socket.readyState === "open")).toBe(true);
    const answer: Answer = await within(3_000, call(server.url, "/v1/pets", { key: KEY }));
    expect(answer.status).toBe(200);
    expect(server.stats().evicted).toBeGreaterThanOrEqual(150);
  });

  it("never closes a connection with a request in flight to make room", async () => {
    server = await startTestServer({ keys: [KEY], maxConnections: 50 });
    const body = '{"name":"Patient","categoryId":1}';
    const answers: Promise<string>[] = [];
    const busy: Socket[] = [];
    for (let i = 0; i < 10; i++) {
      const socket = connect(server.port, "127.0.0.1");
      socket.on("error", () => {});
      sockets.push(socket);
      busy.push(socket);
      let received = "";
      socket.on("data", (data) => (received += data.toString("latin1")));
      answers.push(new Promise((resolve) => socket.once("close", () => resolve(received))));
      // Headers and half the body: the request is in flight until the rest comes.
      socket.write(
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Room is made from the idle ones alone.
    expect(await settled(await openIdle(server.port, 200))).toBeGreaterThanOrEqual(150);
    expect(busy.every((socket) => socket.readyState === "open")).toBe(true);
    for (const socket of busy) socket.write(body.slice(10));
    const received = await within(3_000, Promise.all(answers));
    expect(received.map((text) => text.split(" ")[1])).toEqual(Array(10).fill("201"));
    expect(server.store.size).toBe(10);
    expect((await call(server.url, "/v1/pets", { key: KEY })).status).toBe(200);
  });

  it("over TLS, closes idle sockets for room but never a TLS connection with a request in flight", async () => {
    server = await startTestServer({ keys: [KEY], maxConnections: 50, tls: true });
    const ca = server.tls!.ca!;
    const body = '{"name":"Secure","categoryId":1}';
    const answers: Promise<string>[] = [];
    const busy: TLSSocket[] = [];
    for (let i = 0; i < 5; i++) {
      const socket = connectTls({
        port: server.port,
        host: "127.0.0.1",
        ca,
        servername: "localhost",
      });
      socket.on("error", () => {});
      sockets.push(socket);
      busy.push(socket);
      let received = "";
      socket.on("data", (data: Buffer) => (received += data.toString("latin1")));
      answers.push(new Promise((resolve) => socket.once("close", () => resolve(received))));
      await new Promise((resolve) => socket.once("secureConnect", resolve));
      socket.write(
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Raw sockets that never start a handshake are idle: room is made from them.
    expect(await settled(await openIdle(server.port, 200))).toBeGreaterThanOrEqual(150);
    expect(busy.every((socket) => socket.readyState === "open")).toBe(true);
    for (const socket of busy) socket.write(body.slice(10));
    const received = await within(3_000, Promise.all(answers));
    expect(received.map((text) => text.split(" ")[1])).toEqual(Array(5).fill("201"));
    expect(server.store.size).toBe(5);
  });

  it("refuses a cap that is not a whole number from 1", async () => {
    await expect(startServer({ quiet: true, maxConnections: 0 })).rejects.toThrow(
      "startServer: maxConnections must be an integer from 1 to 1000000; got 0",
    );
  });
});

describe("the default cap", () => {
  it("is 1,000, lowered below a low open-files limit", () => {
    const limits = (soft: string) =>
      `Limit                     Soft Limit           Hard Limit           Units\nMax open files            ${soft}                ${soft}                files\n`;
    expect(defaultMaxConnections(limits("1048576"))).toBe(1000);
    expect(defaultMaxConnections(limits("unlimited"))).toBe(1000);
    expect(defaultMaxConnections(limits("256"))).toBe(192);
    expect(defaultMaxConnections(limits("10"))).toBe(1);
    expect(defaultMaxConnections(undefined)).toBe(1000);
  });

  it("keeps `serve` under `ulimit -n 128` answering after 400 idle sockets", async () => {
    const url = await startServe(["ulimit -n 128"], []);
    const port = Number(new URL(url).port);
    await settled(await openIdle(port, 400));
    const answer = await within(3_000, call(url, "/v1/pets", { key: KEY }));
    expect(answer.status).toBe(200);
  });

  it("is set by `serve --max-connections`, which refuses 0 with exit 2", async () => {
    const url = await startServe([], ["--max-connections", "30"]);
    const closed = await settled(await openIdle(Number(new URL(url).port), 100));
    expect(closed).toBeGreaterThanOrEqual(70);
    expect((await within(3_000, call(url, "/v1/pets", { key: KEY }))).status).toBe(200);

    const refused = serveChild([], ["--max-connections", "0"]);
    let stderr = "";
    refused.stderr.on("data", (data: Buffer) => (stderr += data.toString()));
    const code = await new Promise((resolve) => refused.once("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--max-connections must be an integer from 1 to 1000000; got "0"');
  });
});

/** `petstore serve` on a free port and a file in the temporary directory, after `shell` lines. */
function serveChild(shell: string[], args: string[]): ChildProcessWithoutNullStreams {
  const script = [...shell, 'exec "$0" "$@"'].join(" && ");
  const child = spawn(
    "sh",
    [
      "-c",
      script,
      process.execPath,
      BIN,
      "serve",
      "--port",
      "0",
      "--quiet",
      "--file",
      join(dir, `pets-${children.length}.json`),
      ...args,
    ],
    { env: { ...process.env, PETSTORE_SERVE_KEYS: KEY }, cwd: dir },
  );
  children.push(child);
  return child;
}

/** Resolves with the base URL once serve prints it. */
async function startServe(shell: string[], args: string[]): Promise<string> {
  await ensureBuilt();
  const child = serveChild(shell, args);
  return new Promise<string>((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (data: Buffer) => (stderr += data.toString()));
    child.stdout.on("data", (data: Buffer) => {
      stdout += data.toString();
      if (stdout.includes("\n")) resolve(stdout.trim());
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
}
