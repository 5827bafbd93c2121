/**
 * The control plane of a real `petstore serve` (bin/petstore.js): a reset is
 * durable across kill -9, the flags, the start-up note, and a hand-written pet
 * without an id.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseJson } from "../../../src/schema/json.js";
import type { Pet } from "../../../src/schema/pet.js";
import { ensureBuilt } from "../cli-build.js";
import { call } from "../http.js";
import { killServes, runServe, startServe } from "../serve-process.js";
import { admin, expectError } from "./admin-http.js";

const TOKEN = "serve-admin-token-0123456789";
let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), "petstore-admin-serve-"));
});
afterEach(killServes);
afterAll(() => rm(dir, { recursive: true, force: true }));

const serve = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  startServe(["--port", "0", "--key", "k:enterprise", ...args], { cwd: dir, env });
const names = async (url: string) =>
  (parseJson((await call(url, "/v1/pets?limit=100", { key: "k" })).text) as Pet[]).map(
    (pet) => pet.name,
  );

describe("POST /__admin/reset on petstore serve", () => {
  it("is durable: kill -9 right after the 200 restarts in the reset state", async () => {
    const file = join(dir, "reset.json");
    const first = await serve(["--file", file, "--seed", "4", "--quiet"]);
    const seeded = await names(first.lines[0]!);
    for (let i = 0; i < 20; i++) {
      const created = await call(first.lines[0]!, "/v1/pets", {
        key: "k",
        body: JSON.stringify({ name: `Gone ${i}`, categoryId: 1 }),
      });
      expect(created.status).toBe(201);
    }
    const reset = await admin(first.lines[0]!, "/reset", { method: "POST" });
    expect(reset.body).toEqual({ status: "reset", pets: 4 });
    first.child.kill("SIGKILL");
    expect((await first.exited).signal).toBe("SIGKILL");

    const second = await serve(["--file", file, "--quiet"]);
    expect(await names(second.lines[0]!)).toEqual(seeded);
    const next = await call(second.lines[0]!, "/v1/pets", {
      key: "k",
      body: '{"name":"Next","categoryId":1}',
    });
    // Ids 5 to 24 went to pets the reset removed: never given out again, restart or not.
    expect(parseJson(next.text)).toMatchObject({ id: 25n });
  });
});

describe("serve's control-plane flags", () => {
  it("--admin-token (or PETSTORE_SERVE_ADMIN_TOKEN) is required as a bearer token", async () => {
    for (const [args, env] of [
      [["--admin-token", TOKEN], {}],
      [[], { PETSTORE_SERVE_ADMIN_TOKEN: TOKEN }],
    ] as const) {
      const running = await serve(["--file", join(dir, "token.json"), "--quiet", ...args], env);
      const url = running.lines[0]!;
      expectError(await admin(url, "/health"), 401, "admin_unauthorized");
      expect((await admin(url, "/health", { key: TOKEN })).status).toBe(200);
      running.child.kill("SIGTERM");
      await running.exited;
    }
  });

  it("a weak --admin-token or a bad --journal-size is a usage error (exit 2)", async () => {
    const weak = await runServe(["--file", join(dir, "weak.json"), "--admin-token", "short"], {
      cwd: dir,
    });
    expect(weak.code).toBe(2);
    expect(weak.stderr).toContain("--admin-token must be 16 to 512 of the characters");
    const size = await runServe(["--file", join(dir, "size.json"), "--journal-size", "many"], {
      cwd: dir,
    });
    expect(size.code).toBe(2);
    expect(size.stderr).toContain("--journal-size must be an integer from 0 to 100000");
  });

  it("--journal-size keeps that many requests", async () => {
    const running = await serve([
      "--file",
      join(dir, "journal.json"),
      "--journal-size",
      "2",
      "--quiet",
    ]);
    const url = running.lines[0]!;
    for (const limit of [1, 2, 3]) await call(url, `/v1/pets?limit=${limit}`, { key: "k" });
    const answer = await admin(url, "/requests");
    expect((answer.body.requests as { query: string }[]).map((entry) => entry.query)).toEqual([
      "limit=2",
      "limit=3",
    ]);
    expect(answer.body.journalSize).toBe(2);
  });

  it("says where the control plane is at start-up", async () => {
    const running = await serve(["--file", join(dir, "note.json")]);
    const adminUrl = running.lines[0]!.replace(/\/v1$/, "/__admin");
    await expect
      .poll(() => running.stderr())
      .toContain(`petstore serve: control plane at ${adminUrl} (no credential on loopback)`);
  });
});

describe("a pet written without an id", () => {
  it("gets the next id when serve starts, and the file is rewritten with it", async () => {
    const file = join(dir, "by-hand.json");
    await writeFile(
      file,
      '[\n  {"id": 7, "name": "Seven", "categoryId": 1},\n  {"name": "New", "categoryId": 2}\n]\n',
    );
    const running = await serve(["--file", file]);
    const got = await call(running.lines[0]!, "/v1/pets/8", { key: "k" });
    expect(got.text).toBe('{"id":8,"name":"New","categoryId":2}');
    expect(await readFile(file, "utf8")).toBe(
      '[\n{"id":7,"name":"Seven","categoryId":1},\n{"id":8,"name":"New","categoryId":2}\n]\n',
    );
    await expect
      .poll(() => running.stderr())
      .toContain(`Gave 1 pet without an id in ${file} the id 8`);
  });
});
