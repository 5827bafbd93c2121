/**
 * A full disk, for real: the fake serves a file on a 256 KiB tmpfs mounted inside
 * the test's own directory, which is then filled. An add that cannot be written to the write-ahead log
 * is answered 507 `insufficient_storage`, is not served, takes no id, and the CLI
 * calls it a failure (exit 6), not an unknown outcome. Once space is freed adds
 * work again, and a restart serves exactly the acknowledged pets.
 */
import { execFileSync } from "node:child_process";
import { closeSync, openSync, writeSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJson } from "../../src/schema/json.js";
import type { Pet } from "../../src/schema/pet.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { openFileStore } from "../../src/server/store/file-store.js";
import { StoreError } from "../../src/server/store/memory.js";
import { runCli } from "../e2e/harness.js";
import { ensureBuilt } from "./cli-build.js";
import { call } from "./http.js";

const KEY = "full-disk-key-0123456789";
const MAX_ADDS_TO_FILL = 2_000;

let root: string;
let disk: string;
let mounted = false;
let file: string;
let server: RunningServer | undefined;
let log = "";

beforeAll(async () => {
  await ensureBuilt();
  root = await mkdtemp(join(tmpdir(), "petstore-full-disk-"));
  disk = join(root, "disk");
  await mkdir(disk);
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k,mode=0755", "tmpfs", disk]);
  mounted = true;
  file = join(disk, "pets.json");
});
afterAll(async () => {
  await server?.close().catch(() => {});
  if (mounted) execFileSync("umount", [disk]);
  await rm(root, { recursive: true, force: true });
});

/** The store rewrites the file only at close, so nothing frees or takes space behind the test. */
async function start(): Promise<RunningServer> {
  const sink = { write: (text: string) => (log += text) };
  return startServer({
    store: await openFileStore({
      file,
      flushIntervalMs: 3_600_000,
      log: (line) => sink.write(line),
    }),
    port: 0,
    keys: [`${KEY}:enterprise`],
    quiet: true,
    log: sink,
  });
}

const add = (name: string) =>
  call(server!.url, "/v1/pets", { key: KEY, body: JSON.stringify({ name, categoryId: 1 }) });

async function listed(): Promise<Pet[]> {
  const answer = await call(server!.url, "/v1/pets?limit=100", { key: KEY });
  expect(answer.status).toBe(200);
  return answer.json() as unknown as Pet[];
}

/** Writes a file of zeros until the file system has no block left for it. */
function fill(path: string): void {
  const fd = openSync(path, "w");
  const block = Buffer.alloc(4096);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
}

describe("serve on a full disk", () => {
  const acknowledged: Pet[] = [];
  let refusedName = "";

  it("answers 507 insufficient_storage once an add cannot be written to the write-ahead log, and serves no phantom", async () => {
    server = await start();
    for (const name of ["Before 1", "Before 2"]) {
      const answer = await add(name);
      expect(answer.status).toBe(201);
      acknowledged.push(answer.json() as unknown as Pet);
    }
    fill(join(disk, "filler"));

    // The write-ahead log's last block may still have room for a few pets: add until it has none.
    let refused: Awaited<ReturnType<typeof add>> | undefined;
    for (let i = 0; i < MAX_ADDS_TO_FILL && refused === undefined; i++) {
      const name = `Filling ${i}`;
      const answer = await add(name);
      if (answer.status === 201) acknowledged.push(answer.json() as unknown as Pet);
      else {
        refused = answer;
        refusedName = name;
      }
    }
    expect(refused, "no add was refused on a full disk").toBeDefined();
    expect(refused!.status).toBe(507);
    expect(refused!.headers["content-type"]).toMatch(/^application\/json/);
    const body = JSON.parse(refused!.text) as { code: string; message: string; status: number };
    expect(body.code).toBe("insufficient_storage");
    expect(body.status).toBe(507);
    expect(body.message).toContain("no space left on device");
    expect(body.message).toContain("was not stored");

    // Not served, and no id was used up: the next id is still free.
    expect((await listed()).map((p) => p.name)).toEqual(acknowledged.map((p) => p.name));
    const nextId = acknowledged.at(-1)!.id + 1n;
    expect((await call(server.url, `/v1/pets/${nextId}`, { key: KEY })).status).toBe(404);
    // Still full: refused again, the same way.
    expect((await add("Still refused")).status).toBe(507);
    expect(log).toContain("no space left on device");
  });

  it("makes `petstore add` fail with exit 6, not outcome unknown", async () => {
    const env = {
      PETSTORE_BASE_URL: server!.url,
      PETSTORE_API_KEY: KEY,
      PETSTORE_CONFIG_DIR: join(root, "config"),
    };
    const single = await runCli(["add", "--name", "Via CLI", "--category-id", "1"], { env });
    expect(single.code, single.stderr).toBe(6);
    expect(single.stderr).toContain("507 Insufficient Storage");
    expect(single.stderr).not.toContain("may or may not");

    const rows = join(root, "rows.csv");
    await writeFile(rows, "name,categoryId\nBulk 1,1\nBulk 2,1\n");
    const results = join(root, "rows.results.ndjson");
    const bulk = await runCli(["add", "--from", rows, "--results", results], { env });
    expect(bulk.code, bulk.stderr).toBe(6);
    const lines = (await readFile(results, "utf8"))
      .trim()
      .split("\n")
      .map(
        (line) =>
          JSON.parse(line) as { outcome?: string; error?: { status?: number; code?: string } },
      );
    const outcomes = lines.filter(
      (line) => line.outcome !== undefined && line.outcome !== "sending",
    );
    expect(outcomes.length).toBeGreaterThan(0);
    for (const line of outcomes) {
      expect(line.outcome).toBe("failed");
      expect(line.error).toMatchObject({ status: 507, code: "insufficient_storage" });
    }
    expect((await listed()).map((p) => p.name)).toEqual(acknowledged.map((p) => p.name));
  });

  it("adds again once space is freed, with the next id, and a restart serves exactly the acknowledged pets", async () => {
    await unlink(join(disk, "filler"));
    const answer = await add("After");
    expect(answer.status).toBe(201);
    const after = answer.json() as unknown as Pet;
    expect(after.id).toBe(acknowledged.at(-1)!.id + 1n);
    acknowledged.push(after);
    expect(log).toContain("stored in");

    await server!.close();
    server = await start();
    const served = await listed();
    expect(served).toEqual(acknowledged);
    expect(served.map((p) => p.name)).not.toContain(refusedName);
    expect(parseJson(await readFile(file, "utf8"))).toEqual(acknowledged);
  });

  it("keeps every acknowledged pet in the write-ahead log when the file cannot be written", async () => {
    fill(join(disk, "filler"));
    for (let i = 0; i < MAX_ADDS_TO_FILL; i++) {
      const answer = await add(`Last ${i}`);
      if (answer.status !== 201) break;
      acknowledged.push(answer.json() as unknown as Pet);
    }
    // The stop writes the file a last time: the disk refuses it, the pets stay in the log.
    const stopped = await server!.close().then(
      () => undefined,
      (error: unknown) => error,
    );
    server = undefined;
    expect(String(stopped)).toContain("no space left on device");
    expect(log).toContain(`acknowledged pets are not in ${file} yet; they stay in ${file}.journal`);
    // A start must write them into the file first: it cannot yet, says why, and loses nothing.
    const wal = await readFile(`${file}.journal`, "utf8");
    const refused = await openFileStore({ file }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StoreError);
    expect((refused as StoreError).message).toContain("no space left on device");
    expect(await readFile(`${file}.journal`, "utf8")).toBe(wal);

    await unlink(join(disk, "filler"));
    server = await start();
    expect(log).toContain("Recovered");
    expect(await listed()).toEqual(acknowledged.slice(0, 100));
    expect(parseJson(await readFile(file, "utf8"))).toEqual(acknowledged);
  });
});
