/**
 * `startServer({ tls })`: https with a given certificate, or with one made at
 * start-up and signed by a local CA (in memory, or kept next to the data file);
 * the certificate's names and dates; bad options refused before anything is
 * opened; and the connection cap and handshake timeout over TLS.
 */
import { X509Certificate } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { request } from "node:https";
import { connect as connectTcp, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as connectTls, type TLSSocket } from "node:tls";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ServerConfigError } from "../../src/server/config-error.js";
import type { StartServerOptions } from "../../src/server/options.js";
import type { RunningServer } from "../../src/server/server.js";
import { makeCa } from "../../src/server/tls/make-certificates.js";
import { serverNames } from "../../src/server/tls/local-ca.js";
import { REPO_ROOT } from "./cli-build.js";
import { startTestServer } from "./http.js";

const KEY = "tls-key";
const FIXTURE_CERT = join(REPO_ROOT, "test", "fixtures", "tls", "localhost.crt");
const FIXTURE_KEY = join(REPO_ROOT, "test", "fixtures", "tls", "localhost.key");
const DAY_MS = 86_400_000;

let dir: string;
let server: (RunningServer & { logText: () => string }) | undefined;
const sockets: Socket[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "petstore-tls-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await server?.close();
  server = undefined;
});

async function start(options: StartServerOptions) {
  server = await startTestServer({ keys: [KEY], ...options });
  return server;
}

interface HttpsAnswer {
  status: number;
  text: string;
}

/** GET `path` over https, trusting `ca` only. */
function get(url: string, path: string, ca: string | Buffer | undefined): Promise<HttpsAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname.replace(/^\[(.*)\]$/, "$1"),
        port,
        path,
        ca,
        agent: false,
        headers: { authorization: `Bearer ${KEY}` },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** The certificate the server presents to `servername`. */
function peerCertificate(port: number, ca: string, servername: string): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const socket: TLSSocket = connectTls({ port, host: "127.0.0.1", ca, servername }, () => {
      const certificate = socket.getPeerX509Certificate();
      socket.destroy();
      if (certificate === undefined) reject(new Error("no certificate"));
      else resolve(certificate);
    });
    socket.on("error", reject);
  });
}

describe("startServer({ tls: true }) without a data file", () => {
  it("serves https with a certificate its in-memory CA signed", async () => {
    const running = await start({ tls: true });
    expect(running.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(running.tls?.caFile).toBeUndefined();
    const ca = running.tls!.ca!;
    const answer = await get(running.url, "/v1/pets", ca);
    expect(answer.status).toBe(200);
    await expect(get(running.url, "/v1/pets", undefined)).rejects.toThrow(/certificate/);
  });

  it("logs a handshake a client gave up on, asking whether it trusts the CA, once for a burst", async () => {
    const file = join(dir, "handshake.json");
    const running = await start({ tls: true, quiet: false, file });
    await expect(get(running.url, "/v1/pets", undefined)).rejects.toThrow(/certificate/);
    for (let i = 0; i < 50 && !running.logText().includes("handshake"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // A client that tries again at once is not logged again (one line per 10 s at most).
    await expect(get(running.url, "/v1/pets", undefined)).rejects.toThrow(/certificate/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await running.close();
    const line = `a TLS handshake failed (socket hang up): does the client trust the CA (NODE_EXTRA_CA_CERTS=${file}.ca.pem)?`;
    expect(running.logText().split(line).length - 1).toBe(1);
  });

  it("logs another failed handshake with OpenSSL's reason", async () => {
    const running = await start({ tls: true, quiet: false });
    const socket = connectTcp(running.port, "127.0.0.1");
    sockets.push(socket);
    socket.on("error", () => {});
    socket.write("GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n");
    await new Promise((resolve) => socket.once("close", resolve));
    await running.close();
    expect(running.logText()).toContain(
      "a TLS handshake failed (http request): does the client trust the certificate?",
    );
  });

  it("makes the certificate for localhost, 127.0.0.1 and ::1, for serving only, for 397 days at most", async () => {
    const before = Date.now();
    const running = await start({ tls: true });
    const ca = new X509Certificate(running.tls!.ca!);
    const leaf = await peerCertificate(running.port, running.tls!.ca!, "localhost");
    expect(leaf.subjectAltName).toBe(
      "DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1",
    );
    expect(leaf.checkHost("localhost")).toBe("localhost");
    expect(leaf.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(leaf.checkIP("::1")).toBe("::1");
    expect(leaf.ca).toBe(false);
    expect(leaf.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1"]);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    const notBefore = Date.parse(leaf.validFrom);
    const notAfter = Date.parse(leaf.validTo);
    expect(notBefore).toBeLessThan(before);
    expect(notBefore).toBeGreaterThan(before - 2 * 3_600_000);
    expect(notAfter - before).toBeLessThanOrEqual(397 * DAY_MS);
    expect(notAfter - before).toBeGreaterThan(396 * DAY_MS);
    expect(ca.ca).toBe(true);
    expect(Date.parse(ca.validTo) - before).toBeGreaterThan(9 * 365 * DAY_MS);
  });

  it("serves IPv6 loopback with a bracketed https URL the certificate covers", async () => {
    const running = await start({ tls: true, host: "::1" });
    expect(running.url).toMatch(/^https:\/\/\[::1\]:\d+\/v1$/);
    expect((await get(running.url, "/v1/pets", running.tls!.ca)).status).toBe(200);
  });

  it("adds the address listened on to the names, unless it is a wildcard", () => {
    expect(serverNames("0.0.0.0")).toEqual(["localhost", "127.0.0.1", "::1"]);
    expect(serverNames("::")).toEqual(["localhost", "127.0.0.1", "::1"]);
    expect(serverNames("localhost")).toEqual(["localhost", "127.0.0.1", "::1"]);
    expect(serverNames("192.168.1.20")).toEqual(["localhost", "127.0.0.1", "::1", "192.168.1.20"]);
    expect(serverNames("Dev.Example")).toEqual(["localhost", "127.0.0.1", "::1", "dev.example"]);
  });
});

describe("startServer({ tls: { cert, key } })", () => {
  it("serves that certificate", async () => {
    const cert = await readFile(FIXTURE_CERT);
    const running = await start({ tls: { cert, key: await readFile(FIXTURE_KEY, "utf8") } });
    expect(running.url).toMatch(/^https:/);
    expect(running.tls).toEqual({ ca: undefined, caFile: undefined });
    expect((await get(running.url, "/v1/pets", cert)).status).toBe(200);
  });

  it("notes a certificate that has expired or is not valid yet, and serves it all the same", async () => {
    const now = Date.now();
    for (const [from, to] of [
      [-10, -1],
      [1, 10],
    ]) {
      const pair = await makeCa(
        "localhost",
        new Date(now + from! * DAY_MS),
        new Date(now + to! * DAY_MS),
      );
      const { validFrom, validTo } = new X509Certificate(pair.cert);
      const running = await start({ tls: pair });
      expect(await get(running.url, "/v1/pets", undefined).catch(String)).toMatch(/certificate/);
      await running.close();
      expect(running.logText()).toContain(
        `the TLS certificate is valid from ${validFrom} to ${validTo}: clients will refuse it now`,
      );
    }
  });

  const refusals: Array<[string, () => Promise<unknown>, string]> = [
    [
      "text that is not PEM",
      async () => ({ cert: "not a certificate", key: await readFile(FIXTURE_KEY) }),
      "tls.cert: not a PEM certificate (error:0480006C:PEM routines::no start line).",
    ],
    [
      "the certificate and key swapped",
      async () => ({ cert: await readFile(FIXTURE_KEY), key: await readFile(FIXTURE_CERT) }),
      "tls.cert: not a PEM certificate",
    ],
    [
      "a key that is not the certificate's",
      async () => {
        const other = await makeCa("other", new Date(), new Date(Date.now() + DAY_MS));
        return { cert: await readFile(FIXTURE_CERT), key: other.key };
      },
      "tls.key is not the private key of the certificate in tls.cert",
    ],
    [
      "an unknown option",
      async () => ({
        cert: await readFile(FIXTURE_CERT),
        key: await readFile(FIXTURE_KEY),
        ca: "",
      }),
      "startServer: tls.ca is not an option; options of tls: cert, key",
    ],
    [
      "a string",
      () => Promise.resolve("yes"),
      'startServer: tls must be true or { cert, key } (PEM text); got "yes"',
    ],
    [
      "a number for the key",
      async () => ({ cert: await readFile(FIXTURE_CERT), key: 1 }),
      "startServer: tls must be true or { cert, key } (PEM text); got an object",
    ],
  ];

  for (const [what, option, message] of refusals) {
    it(`refuses ${what} before the data file is opened`, async () => {
      const file = join(dir, `refused-${what.replace(/\W+/g, "-")}.json`);
      const attempt = startTestServer({ file, tls: (await option()) as StartServerOptions["tls"] });
      await expect(attempt).rejects.toThrow(ServerConfigError);
      await expect(attempt).rejects.toThrow(message);
      expect(existsSync(file)).toBe(false);
      expect(existsSync(`${file}.lock`)).toBe(false);
    });
  }
});

describe("startServer({ tls: true, file })", () => {
  it("keeps the CA next to the file, its key 0600, and reuses it at the next start", async () => {
    const file = join(dir, "kept.json");
    const first = await start({ file, tls: true });
    expect(first.tls?.caFile).toBe(`${file}.ca.pem`);
    expect(first.tls?.ca).toBe(await readFile(`${file}.ca.pem`, "utf8"));
    expect((await stat(`${file}.ca-key.pem`)).mode & 0o777).toBe(0o600);
    await first.close();
    expect(first.logText()).toContain(`made a new local CA, ${file}.ca.pem`);
    expect(first.logText()).toContain("(there was none)");

    const second = await start({ file, tls: true });
    expect(second.tls?.ca).toBe(first.tls?.ca);
    expect((await get(second.url, "/v1/pets", first.tls!.ca)).status).toBe(200);
    await second.close();
    expect(second.logText()).not.toContain("made a new local CA");
  });
});

describe("the connection cap over TLS", () => {
  it("never closes a TLS connection with a request in flight to make room", async () => {
    const cert = await readFile(FIXTURE_CERT, "utf8");
    const running = await start({
      tls: { cert, key: await readFile(FIXTURE_KEY, "utf8") },
      maxConnections: 50,
    });
    const body = '{"name":"Patient","categoryId":1}';
    const busy: TLSSocket[] = [];
    const answers: Promise<string>[] = [];
    for (let i = 0; i < 10; i++) {
      const socket = connectTls({ port: running.port, host: "127.0.0.1", ca: cert });
      socket.on("error", () => {});
      sockets.push(socket);
      busy.push(socket);
      let received = "";
      socket.on("data", (data: Buffer) => (received += data.toString("latin1")));
      answers.push(new Promise((resolve) => socket.once("close", () => resolve(received))));
      await new Promise<void>((resolve) => socket.once("secureConnect", () => resolve()));
      // Headers and half the body: the request is in flight until the rest comes.
      socket.write(
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    // 200 connections that never start a handshake: idle, so closed for room.
    for (let i = 0; i < 200; i++) {
      const socket = connectTcp(running.port, "127.0.0.1");
      socket.on("error", () => {});
      sockets.push(socket);
      await new Promise<void>((resolve) => {
        socket.once("connect", () => resolve());
        socket.once("close", () => resolve());
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(running.stats().evicted).toBeGreaterThanOrEqual(150);
    expect(busy.every((socket) => !socket.destroyed && socket.readyState === "open")).toBe(true);
    for (const socket of busy) socket.write(body.slice(10));
    const received = await Promise.all(answers);
    expect(received.map((text) => text.split(" ")[1])).toEqual(Array(10).fill("201"));
    expect(running.store.size).toBe(10);
  });

  it("closes a connection that never finishes its handshake once the header timeout passes", async () => {
    const running = await start({
      tls: true,
      timeouts: { headersTimeoutMs: 300, checkIntervalMs: 100 },
    });
    const socket = connectTcp(running.port, "127.0.0.1");
    sockets.push(socket);
    socket.on("error", () => {});
    const closed = new Promise<boolean>((resolve) => socket.once("close", () => resolve(true)));
    // Node's own default would keep it for 120 s; a generous bound well below that.
    const late = new Promise<boolean>((resolve) =>
      setTimeout(() => resolve(false), 10_000).unref(),
    );
    expect(await Promise.race([closed, late])).toBe(true);
  });
});
