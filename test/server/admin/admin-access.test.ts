/**
 * Who may use the control plane: open on loopback, off elsewhere without a token,
 * the token required wherever one is set, and browsers of other origins kept out.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { isLoopback } from "../../../src/server/admin/access.js";
import { createApp } from "../../../src/server/app.js";
import { appOptions } from "../app-options.js";
import { KeyInput } from "../../../src/server/keys.js";
import { planServe, type ServeFlags } from "../../../src/server/serve-options.js";
import { createMemoryStore } from "../../../src/server/store/memory.js";
import { call, startTestServer } from "../http.js";
import { admin, expectError } from "./admin-http.js";

const KEY = "access-key";
const TOKEN = "s3cret-admin-token-0123";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** The app as `serve --host <host>` makes it, listening on 127.0.0.1 only. */
async function appFor(host: string, token?: string): Promise<string> {
  const app = createApp(
    createMemoryStore(),
    appOptions({
      keys: [KeyInput.parse(KEY)],
      host,
      adminToken: token,
    }),
  );
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

describe("bound to a loopback address", () => {
  it("needs no credential", async () => {
    for (const host of ["127.0.0.1", "::1", "localhost"]) {
      expect((await admin(await appFor(host), "/health")).status).toBe(200);
    }
  });

  it("refuses requests from a page of another origin (a browser's cross-site POST)", async () => {
    const url = await appFor("127.0.0.1");
    const origin = new URL(url).origin;
    const answer = await admin(url, "/reset", {
      method: "POST",
      headers: { origin: "https://evil.example" },
    });
    expect(expectError(answer, 403, "admin_forbidden")).toContain("another origin");
    expectError(
      await admin(url, "/health", { headers: { origin: "null" } }),
      403,
      "admin_forbidden",
    );
    // The fake's own pages are of its origin.
    expect((await admin(url, "/reset", { method: "POST", headers: { origin } })).status).toBe(200);
  });

  it("refuses a Host that is not a loopback name (DNS rebinding)", async () => {
    const url = await appFor("127.0.0.1");
    const port = new URL(url).port;
    const message = expectError(
      await admin(url, "/health", { headers: { host: `rebound.example:${port}` } }),
      403,
      "admin_forbidden",
    );
    expect(message).toContain("loopback name");
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      "app.localhost",
    ]) {
      expect((await admin(url, "/health", { headers: { host } })).status, host).toBe(200);
    }
  });
});

describe("bound to any other address", () => {
  it.each(["0.0.0.0", "::", "192.168.1.20"])(
    "is off on %s without a token: 404 everywhere",
    async (host) => {
      const url = await appFor(host);
      for (const [path, method] of [
        ["/health", "GET"],
        ["/reset", "POST"],
        ["/requests", "GET"],
        ["/keys", "POST"],
      ]) {
        const message = expectError(await admin(url, path!, { method }), 404, "not_found");
        expect(message).toContain(`the fake listens on ${host}`);
        expect(message).toContain("--admin-token");
      }
      expect((await call(url, "/v1/pets", { key: KEY })).status).toBe(200);
    },
  );

  it("is on with a token, and needs it as a bearer token", async () => {
    const url = await appFor("0.0.0.0", TOKEN);
    const missing = await admin(url, "/health");
    expect(expectError(missing, 401, "admin_unauthorized")).toContain("--admin-token");
    expect(missing.headers["www-authenticate"]).toBe('Bearer realm="petstore-admin"');
    expectError(
      await admin(url, "/health", { key: "wrong-token-of-the-same-len" }),
      401,
      "admin_unauthorized",
    );
    expectError(await admin(url, "/health", { key: KEY }), 401, "admin_unauthorized");
    expect((await admin(url, "/health", { key: TOKEN })).status).toBe(200);
    expect(
      (await admin(url, "/health", { headers: { authorization: `bearer ${TOKEN}` } })).status,
    ).toBe(200);
    // A token is a credential a page of another origin cannot have: no origin check then.
    const fromPage = await admin(url, "/health", {
      key: TOKEN,
      headers: { origin: "https://tool.example", host: "box.lan:4010" },
    });
    expect(fromPage.status).toBe(200);
    // The admin token is no API key.
    expect((await call(url, "/v1/pets", { key: TOKEN })).status).toBe(401);
  });
});

describe("startServer({ adminToken })", () => {
  it("requires the token on loopback too", async () => {
    const server = await startTestServer({ keys: [KEY], adminToken: TOKEN });
    cleanups.push(() => server.close());
    expectError(await admin(server.url, "/health"), 401, "admin_unauthorized");
    expect((await admin(server.url, "/health", { key: TOKEN })).status).toBe(200);
  });

  it("refuses a weak token", async () => {
    await expect(startTestServer({ adminToken: "short" })).rejects.toThrow(
      /^startServer: adminToken must be 16 to 512 of the characters/,
    );
  });
});

describe("serve's flags", () => {
  const flags = (extra: Partial<ServeFlags>): ServeFlags => ({
    file: "p.json",
    port: "0",
    host: "127.0.0.1",
    key: [],
    ...extra,
  });

  it("take the token from --admin-token, else from PETSTORE_SERVE_ADMIN_TOKEN", () => {
    expect(planServe(flags({ adminToken: TOKEN }), {}).options.adminToken).toBe(TOKEN);
    expect(planServe(flags({}), { PETSTORE_SERVE_ADMIN_TOKEN: TOKEN }).options.adminToken).toBe(
      TOKEN,
    );
    expect(
      planServe(flags({ adminToken: TOKEN }), {
        PETSTORE_SERVE_ADMIN_TOKEN: "other-token-0123456789",
      }).options.adminToken,
    ).toBe(TOKEN);
    expect(planServe(flags({}), {}).options.adminToken).toBeUndefined();
    expect(() => planServe(flags({ adminToken: "weak" }), {})).toThrow(
      "--admin-token must be 16 to 512 of the characters A-Z a-z 0-9 - . _ ~ + / (then optional =)",
    );
    expect(() =>
      planServe(flags({}), { PETSTORE_SERVE_ADMIN_TOKEN: "has space in it 0123" }),
    ).toThrow(/^PETSTORE_SERVE_ADMIN_TOKEN must be 16 to 512/);
  });

  it("take --journal-size from 0 to 100000", () => {
    expect(planServe(flags({ journalSize: "0" }), {}).options.journalSize).toBe(0);
    expect(planServe(flags({ journalSize: "100000" }), {}).options.journalSize).toBe(100_000);
    expect(() => planServe(flags({ journalSize: "100001" }), {})).toThrow(
      /--journal-size must be an integer from 0 to 100000/,
    );
    expect(() => planServe(flags({ journalSize: "-1" }), {})).toThrow(/--journal-size/);
  });
});

describe("isLoopback", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.8.9.10", true],
    ["::1", true],
    ["[::1]", true],
    ["0:0:0:0:0:0:0:1", true],
    ["::ffff:127.0.0.1", true],
    ["localhost", true],
    ["LOCALHOST", true],
    ["app.localhost", true],
    ["0.0.0.0", false],
    ["::", false],
    ["128.0.0.1", false],
    ["::ffff:10.0.0.1", false],
    ["localhost.example.com", false],
    ["example.com", false],
    ["", false],
  ])("%s: %s", (host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });
});
