/**
 * `petstore serve --health-check`, the container image's health check: a real CLI
 * process asks a real fake for /__admin/health, with the admin token from the
 * environment as the container gives it, and exits 0 only when the fake is healthy.
 */
import { execFile } from "node:child_process";
import { afterEach, beforeAll, expect, it } from "vitest";
import { BIN, ensureBuilt } from "./cli-build.js";
import { startTestServer } from "./http.js";

const TOKEN = "health-check-token-0123";
const closes: Array<() => Promise<void>> = [];

beforeAll(ensureBuilt);
afterEach(async () => {
  for (const close of closes.splice(0)) await close();
});

async function fake(host: string, adminToken?: string): Promise<number> {
  const server = await startTestServer({ host, port: 0, keys: ["k:free"], adminToken });
  closes.push(() => server.close());
  return server.port;
}

function check(port: number, token?: string) {
  const env = { ...process.env, PETSTORE_SERVE_ADMIN_TOKEN: token, PETSTORE_SERVE_KEYS: undefined };
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const args = [BIN, "serve", "--health-check", "--port", String(port)];
    const child = execFile(process.execPath, args, { env }, (_error, stdout, stderr) =>
      resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

it("exits 0 with the health on stdout, the admin token taken from the environment", async () => {
  const result = await check(await fake("127.0.0.1", TOKEN), TOKEN);
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toMatchObject({ status: "ok", pets: 0 });
});

it("needs no token from a fake on loopback without one", async () => {
  expect((await check(await fake("127.0.0.1"))).code).toBe(0);
});

it("exits 3 when the fake refuses the token, or none was given", async () => {
  const port = await fake("127.0.0.1", TOKEN);
  for (const token of [undefined, "not-the-admin-token-0123"]) {
    const result = await check(port, token);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("answered 401: the control plane needs Authorization");
  }
});

it("exits 4 when the control plane is off: every address, and no token", async () => {
  const result = await check(await fake("0.0.0.0"));
  expect(result.code).toBe(4);
  expect(result.stderr).toContain("the control plane (/__admin) is off");
});

it("exits 6 when nothing answers on the port", async () => {
  const server = await startTestServer({ port: 0, keys: ["k:free"] });
  await server.close();
  const result = await check(server.port);
  expect(result.code).toBe(6);
  expect(result.stderr).toContain("connection refused");
  expect(result.stderr).toContain("is the fake started, on this --port?");
});
