/**
 * Issue 19's reproductions against a real `petstore serve` (its default flush of
 * once a second): a 50-pet file rewritten in place over 1.5 s with a POST in the
 * gap, and an editor's copy read before a POST and saved after it.
 */
import { mkdtemp, open, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";
import { parseJson } from "../../src/schema/json.js";
import type { Pet } from "../../src/schema/pet.js";
import { HANG_MS } from "../limits.js";
import { ensureBuilt } from "./cli-build.js";
import { call } from "./http.js";
import { killServes, startServe } from "./serve-process.js";

let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), "petstore-serve-edits-"));
});
afterEach(killServes);
afterAll(() => rm(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const serve = (file: string) =>
  startServe(["--file", file, "--seed", "50", "--port", "0", "--key", "k:enterprise"], {
    cwd: dir,
  });
const post = async (url: string, name: string) =>
  parseJson(
    (await call(url, "/v1/pets", { key: "k", body: JSON.stringify({ name, categoryId: 1 }) })).text,
  ) as Pet;
const served = async (url: string) =>
  (parseJson((await call(url, "/v1/pets?limit=100", { key: "k" })).text) as Pet[]).length;
const filePets = async (file: string) => parseJson(await readFile(file, "utf8")) as Pet[];

it("keeps all 51 pets when the file is rewritten in place over 1.5 s with a POST in the gap", async () => {
  const file = join(dir, "rewritten.json");
  const running = await serve(file);
  const url = running.lines[0]!;
  const text = await readFile(file, "utf8");
  // Truncated first, as `cat new.json > pets.json` does; the first bytes come 1.1 s later.
  const writer = await open(file, "w");
  await sleep(500);
  const created = await post(url, "In the gap");
  const counts = [await served(url)];
  await sleep(600);
  const chunk = Math.ceil(text.length / 10);
  for (let i = 0; i < 10; i++) {
    await writer.write(text.slice(i * chunk, (i + 1) * chunk));
    await sleep(40);
    counts.push(await served(url));
  }
  await writer.close();
  await vi.waitFor(async () => expect(await filePets(file)).toHaveLength(51), {
    timeout: HANG_MS / 2,
    interval: 100,
  });
  expect(Math.min(...counts)).toBeGreaterThanOrEqual(50);
  expect(created.id).toBe(51n);
  expect(await served(url)).toBe(51);
  expect(await readFile(file, "utf8")).toBe(
    text.slice(0, -"\n]\n".length) +
      ',\n{"id":51,"name":"In the gap","categoryId":1,"status":"available"}\n]\n',
  );
  running.child.kill("SIGTERM");
  expect((await running.exited).code).toBe(0);
  expect(await filePets(file)).toHaveLength(51);
});

it("keeps a pet an editor's older copy lacks, and never gives its id to another pet", async () => {
  const file = join(dir, "editor.json");
  const running = await serve(file);
  const url = running.lines[0]!;
  const copy = await readFile(file, "utf8");
  const acknowledged = await post(url, "Acknowledged");
  await vi.waitFor(async () => expect(await filePets(file)).toHaveLength(51), {
    timeout: HANG_MS / 2,
    interval: 100,
  });
  await writeFile(`${file}.swp`, copy);
  await rename(`${file}.swp`, file);
  await vi.waitFor(() => expect(running.stderr()).toContain("Picked up an edit"), {
    timeout: HANG_MS / 2,
    interval: 100,
  });
  const next = await post(url, "Next");
  expect(next.id).toBe(52n);
  const first = await call(url, `/v1/pets/${acknowledged.id}`, { key: "k" });
  expect(parseJson(first.text)).toEqual(acknowledged);
  running.child.kill("SIGTERM");
  expect((await running.exited).code).toBe(0);
  expect((await filePets(file)).map((pet) => pet.name).slice(-2)).toEqual(["Acknowledged", "Next"]);
});
