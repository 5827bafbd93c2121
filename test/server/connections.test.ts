import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ServerConfigError } from "../../src/server/config-error.js";
import { startServer } from "../../src/server/server.js";
import { createMemoryStore, type PetStore } from "../../src/server/store/memory.js";
import { call, startTestServer } from "./http.js";

const KEY = "conn-key";
let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Writes `text` and never anything more; resolves with what came back once the server closes. */
function stallAfter(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (data) => (received += data.toString("latin1")));
    socket.on("error", () => {});
    socket.on("close", () => resolve(received));
    socket.write(text);
  });
}

const SMALL_TIMEOUTS = { headersTimeoutMs: 150, requestTimeoutMs: 300, checkIntervalMs: 25 };

describe("slow clients", () => {
  it("are cut off with 408 when their headers never end", async () => {
    server = await startTestServer({ keys: [KEY], timeouts: SMALL_TIMEOUTS });
    const received = await stallAfter(server.port, "GET /v1/pets HTTP/1.1\r\nHost: x\r\n");
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(received).toMatch(/\r\nX-RateLimit-Limit: 60\r\n/);
    const body = received.slice(received.indexOf("\r\n\r\n") + 4);
    expect(JSON.parse(body)).toEqual({
      code: "request_timeout",
      message: "the request did not arrive in time",
      status: 408,
    });
    expect(server.stats().byStatus[408]).toBe(1);
  });

  it("are cut off when their body never ends", async () => {
    server = await startTestServer({ keys: [KEY], timeouts: SMALL_TIMEOUTS });
    const received = await stallAfter(
      server.port,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"na`,
    );
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(server.store.size).toBe(0);
  });

  it("get a JSON 400 for a request that is not HTTP", async () => {
    server = await startTestServer({ keys: [KEY] });
    const received = await stallAfter(server.port, "HELLO THERE\r\n\r\n");
    expect(received).toMatch(/^HTTP\/1\.1 400 /);
    expect(received).toContain('"code":"bad_request"');
  });
});

describe("shutting down", () => {
  it("finishes a request in flight, closes the store, then refuses new connections", async () => {
    const memory = createMemoryStore();
    let entered!: () => void;
    const createEntered = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const events: string[] = [];
    const store: PetStore = {
      listJson: (options) => memory.listJson(options),
      getJson: (id) => memory.getJson(id),
      get size() {
        return memory.size;
      },
      get revision() {
        return memory.revision;
      },
      reset: () => memory.reset(),
      async create(pet) {
        entered();
        await gate;
        return memory.create(pet);
      },
      async close() {
        events.push("store closed");
        await memory.close();
      },
    };
    server = await startTestServer({ keys: [KEY], store });
    const url = server.url;
    const inFlight = call(url, "/v1/pets", { key: KEY, body: '{"name":"Late","categoryId":1}' });
    await createEntered;
    const closing = server.close().then(() => events.push("closed"));
    events.push("releasing");
    release();
    const answer = await inFlight;
    await closing;
    server = undefined;
    expect(events).toEqual(["releasing", "store closed", "closed"]);
    expect(answer.status).toBe(201);
    expect(answer.headers.connection).toBe("close");
    const refused = await call(url, "/v1/pets", { key: KEY }).catch(
      (error: { code?: string }) => error.code,
    );
    expect(refused).toBe("ECONNREFUSED");
  });
});

describe("listening", () => {
  it("says clearly when the port is in use", async () => {
    server = await startTestServer({ keys: [KEY] });
    await expect(startServer({ port: server.port, quiet: true })).rejects.toThrow(
      new ServerConfigError(
        `port ${server.port} on 127.0.0.1 is already in use; choose another with --port (--port 0 picks a free one)`,
      ),
    );
  });

  it.each([-1, 65536, 1.5])("refuses port %s", async (port) => {
    await expect(startServer({ port, quiet: true })).rejects.toThrow(
      /^startServer: port must be an integer from 0 to 65535/,
    );
  });

  it("generates a free-plan key when none is given", async () => {
    server = await startTestServer();
    expect(server.keys).toHaveLength(1);
    const [generated] = server.keys;
    expect(generated!.plan).toBe("free");
    expect(generated!.key).toMatch(/^psk_[A-Za-z0-9_-]{32}$/);
    expect((await call(server.url, "/v1/pets", { key: generated!.key })).status).toBe(200);
  });

  it("serves IPv6 loopback with a bracketed URL", async () => {
    server = await startTestServer({ keys: [KEY], host: "::1" });
    expect(server.url).toBe(`http://[::1]:${server.port}/v1`);
    expect((await call(server.url, "/v1/pets", { key: KEY })).status).toBe(200);
  });
});
