import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INT64_MAX } from "../../src/schema/pet.js";
import { ERROR_CODES } from "../../src/schema/error-codes.js";
import { createMemoryStore, StoreError, type PetStore } from "../../src/server/store/memory.js";
import { call, manualClock, startTestServer, type Answer } from "./http.js";

const KEY = "codes-key";
const LIMITED = "limited-key";
const BROKEN_LIMIT = 99;
/** The name of a pet the broken store has no room for. */
const NO_ROOM = "No room";
let server: Awaited<ReturnType<typeof startTestServer>>;
let faulty: Awaited<ReturnType<typeof startTestServer>>;

/** A full store (its only pet has the largest id) whose list of 99 fails, out of disk for NO_ROOM. */
function brokenStore(): PetStore {
  const pets = createMemoryStore([{ id: INT64_MAX, name: "Last", categoryId: 1n }]);
  return {
    listJson: (options) => {
      if (options.limit === BROKEN_LIMIT) throw new Error("disk on fire at /secret/path");
      return pets.listJson(options);
    },
    getJson: (id) => pets.getJson(id),
    create: (pet) =>
      (pet as { name?: unknown }).name === NO_ROOM
        ? Promise.reject(new StoreError("not_stored", "The pet was not stored: the disk is full."))
        : pets.create(pet),
    get size() {
      return pets.size;
    },
    get revision() {
      return pets.revision;
    },
    reset: () => pets.reset(),
    close: () => pets.close(),
  };
}

beforeAll(async () => {
  server = await startTestServer({
    keys: [`${KEY}:enterprise`, `${LIMITED}:enterprise:1/1000`],
    store: brokenStore(),
    clock: manualClock(Date.UTC(2030, 0, 1, 0, 0, 30)),
    ban: { banAfter: 1 },
  });
  faulty = await startTestServer({ keys: [KEY], faults: { failRate: 1 } });
});
afterAll(async () => {
  await server.close();
  await faulty.close();
});

/** Sends `text` (and ends the request unless `stall`); reads the answer until the server closes. */
function raw(port: number, text: string, stall = false): Promise<{ status: number; code: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (data) => (received += data.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () =>
      resolve({
        status: Number(received.split(" ")[1]),
        code: (JSON.parse(received.slice(received.indexOf("\r\n\r\n") + 4)) as { code: string })
          .code,
      }),
    );
    if (stall) socket.write(text);
    else socket.end(text);
  });
}

const viaHttp = (answer: Promise<Answer>) =>
  answer.then((a) => ({ status: a.status, code: (JSON.parse(a.text) as { code: string }).code }));

const TRIGGERS: Record<keyof typeof ERROR_CODES, () => Promise<{ status: number; code: string }>> =
  {
    bad_request: () => raw(server.port, "NOT HTTP AT ALL\r\n\r\n"),
    invalid_query: () => viaHttp(call(server.url, "/v1/pets?limit=x", { key: KEY })),
    invalid_pet_id: () => viaHttp(call(server.url, "/v1/pets/x", { key: KEY })),
    empty_body: () => viaHttp(call(server.url, "/v1/pets", { key: KEY, body: "" })),
    invalid_json: () => viaHttp(call(server.url, "/v1/pets", { key: KEY, body: "{" })),
    invalid_body: () => viaHttp(call(server.url, "/v1/pets", { key: KEY, body: "{}" })),
    invalid_admin_request: () =>
      viaHttp(call(server.url, "/__admin/clock", { body: '{"advanceSeconds":-1}' })),
    admin_unauthorized: async () => {
      const guarded = await startTestServer({ keys: [KEY], adminToken: "an-admin-token-of-16+" });
      try {
        return await viaHttp(call(guarded.url, "/__admin/health"));
      } finally {
        await guarded.close();
      }
    },
    admin_forbidden: () =>
      viaHttp(
        call(server.url, "/__admin/reset", {
          method: "POST",
          headers: { origin: "https://elsewhere.example" },
        }),
      ),
    admin_key_not_found: () =>
      viaHttp(call(server.url, "/__admin/keys/no-such-key", { method: "DELETE" })),
    unauthorized: () => viaHttp(call(server.url, "/v1/pets")),
    invalid_key: () => viaHttp(call(server.url, "/v1/pets", { key: "nope" })),
    forbidden: () =>
      raw(
        server.port,
        "GET /__home/pets HTTP/1.1\r\nHost: rebound.example:80\r\nConnection: close\r\n\r\n",
      ),
    not_found: () => viaHttp(call(server.url, "/v2", { key: KEY })),
    pet_not_found: () => viaHttp(call(server.url, "/v1/pets/1", { key: KEY })),
    gone: async () => {
      const removed = await startTestServer({ keys: [KEY], sunset: "now" });
      try {
        return await viaHttp(call(removed.url, "/v1/pets/1", { key: KEY }));
      } finally {
        await removed.close();
      }
    },
    method_not_allowed: () => viaHttp(call(server.url, "/v1/pets", { key: KEY, method: "PUT" })),
    request_timeout: async () => {
      const slow = await startTestServer({
        keys: [KEY],
        timeouts: { headersTimeoutMs: 50, requestTimeoutMs: 100, checkIntervalMs: 10 },
      });
      try {
        return await raw(slow.port, "GET /v1/pets HTTP/1.1\r\n", true);
      } finally {
        await slow.close();
      }
    },
    payload_too_large: () =>
      raw(
        server.port,
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n`,
      ),
    expectation_failed: () =>
      raw(
        server.port,
        `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nExpect: 200-ok\r\n\r\n`,
      ),
    unsupported_media_type: () =>
      viaHttp(call(server.url, "/v1/pets", { key: KEY, body: "{}", contentType: "text/csv" })),
    headers_too_large: () =>
      raw(server.port, `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(20_000)}\r\n\r\n`),
    rate_limited: async () => {
      await call(server.url, "/v1/pets", { key: LIMITED });
      return viaHttp(call(server.url, "/v1/pets", { key: LIMITED }));
    },
    banned: () => viaHttp(call(server.url, "/v1/pets", { key: LIMITED })),
    internal_error: () => viaHttp(call(server.url, `/v1/pets?limit=${BROKEN_LIMIT}`, { key: KEY })),
    fault_injected: () => viaHttp(call(faulty.url, "/v1/pets", { key: KEY })),
    insufficient_storage: () =>
      viaHttp(
        call(server.url, "/v1/pets", {
          key: KEY,
          body: JSON.stringify({ name: NO_ROOM, categoryId: 1 }),
        }),
      ),
    id_space_exhausted: () =>
      viaHttp(
        call(server.url, "/v1/pets", { key: KEY, body: '{"name":"One more","categoryId":1}' }),
      ),
  };

describe("every error code", () => {
  it.each(Object.entries(ERROR_CODES).map(([code, entry]) => [code, entry.status] as const))(
    "%s is answered with status %i",
    async (code, status) => {
      expect(await TRIGGERS[code as keyof typeof ERROR_CODES]()).toEqual({ status, code });
    },
  );

  it("keeps the details of an internal error in the log", async () => {
    const own = await startTestServer({ keys: [KEY], store: brokenStore() });
    const answer = await call(own.url, `/v1/pets?limit=${BROKEN_LIMIT}`, { key: KEY });
    await own.close();
    expect(answer.text).not.toContain("secret");
    expect(answer.text).not.toMatch(/\bat /);
    expect(own.logText()).toContain("internal error on GET request: Error: disk on fire");
  });
});
