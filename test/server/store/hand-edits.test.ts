/**
 * Hand edits of the file while it is served (issue 19): a file being rewritten in
 * place is not an edit until it is whole, an edit from a copy older than a pet
 * keeps that pet, a deliberate deletion still works, and no id is given out twice
 * across edits, resets and restarts.
 */
import { mkdtemp, open as openFile, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseJson } from "../../../src/schema/json.js";
import type { Pet } from "../../../src/schema/pet.js";
import {
  fileText,
  openFileStore,
  type FileStoreOptions,
} from "../../../src/server/store/file-store.js";
import type { PetStore } from "../../../src/server/store/memory.js";
import { HANG_MS } from "../../limits.js";

/** The file as the store writes it. */
const fileOf = (pets: Pet[]) => [...fileText(pets)].join("");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

let file: string;
let logs: string[];
const opened: PetStore[] = [];

beforeEach(async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "petstore-hand-edits-"));
  dirs.push(dir);
  file = path.join(dir, "pets.json");
  logs = [];
});
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close().catch(() => {});
});

async function openStore(options: Partial<FileStoreOptions> = {}): Promise<PetStore> {
  const store = await openFileStore({ file, log: (line) => logs.push(line), ...options });
  opened.push(store);
  return store;
}

const filePets = async () => parseJson(await readFile(file, "utf8")) as Pet[];
const ids = (pets: Pet[]) => pets.map((p) => p.id);
const allPets = (store: PetStore) => parseJson(store.listJson({ limit: 100 })) as Pet[];
const pickedUp = () =>
  vi.waitFor(() => expect(logs.join("\n")).toContain("Picked up an edit"), {
    timeout: HANG_MS / 2,
  });

describe("a file rewritten in place while serving", () => {
  it("is not an edit while empty or half-written: nothing is lost, the writer's content is kept", async () => {
    const INTERVAL_MS = 100;
    const store = await openStore({ seed: 50, flushIntervalMs: INTERVAL_MS });
    const text = await readFile(file, "utf8");
    const sizes: number[] = [];
    // As `cat new.json > pets.json`: truncate first, then write in chunks, 1.5 s in all.
    const writer = await openFile(file, "w");
    await sleep(3 * INTERVAL_MS);
    sizes.push(store.size);
    const created = await store.create({ name: "In the gap", categoryId: 1n });
    await sleep(3 * INTERVAL_MS);
    sizes.push(store.size);
    const chunk = Math.ceil(text.length / 10);
    for (let i = 0; i < 10; i++) {
      await writer.write(text.slice(i * chunk, (i + 1) * chunk));
      await sleep(90);
      sizes.push(store.size);
    }
    await writer.close();

    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(50);
    expect(created.pet.id).toBe(51n);
    await vi.waitFor(async () => expect(await filePets()).toHaveLength(51), {
      timeout: HANG_MS / 2,
    });
    // The writer's 50 pets as it wrote them, with the acknowledged one added after them.
    expect(await readFile(file, "utf8")).toBe(
      text.slice(0, -"\n]\n".length) + ",\n" + created.json + "\n]\n",
    );
    expect(store.size).toBe(51);
    expect(store.getJson(51n)).toBe(created.json);
    expect(logs.join("\n")).toContain("is empty");
  });

  it("stays unwritten while empty, even when pets are created, and at a clean stop", async () => {
    const store = await openStore({ seed: 5, flushIntervalMs: 20 });
    await writeFile(file, "");
    await vi.waitFor(() => expect(logs.join("\n")).toContain("is empty"), { timeout: HANG_MS / 2 });
    const created = await store.create({ name: "Kept", categoryId: 1n });
    await sleep(200);
    expect(await readFile(file, "utf8")).toBe("");
    expect(store.size).toBe(6);
    expect(store.getJson(created.pet.id)).toBe(created.json);
    // Closing with the file still empty: not written over, the pet waits in the write-ahead log.
    await store.close();
    expect(await readFile(file, "utf8")).toBe("");
    expect(await readFile(`${file}.journal`, "utf8")).toContain(created.json);
  });
});

describe("an edit made from an out-of-date copy", () => {
  it("keeps a pet acknowledged after the copy was read, and its id is not given again", async () => {
    const store = await openStore({ seed: 50, flushIntervalMs: 20 });
    const copy = await readFile(file, "utf8");
    const acknowledged = await store.create({ name: "Acknowledged", categoryId: 1n });
    await vi.waitFor(async () => expect(ids(await filePets())).toContain(51n), {
      timeout: HANG_MS / 2,
    });
    // The editor saves its copy (by rename, as most do) with one pet renamed.
    const edited = copy.replace('"id":7,"name":"', '"id":7,"name":"Renamed ');
    await writeFile(`${file}.swp`, edited);
    await rename(`${file}.swp`, file);
    await pickedUp();

    expect(store.getJson(51n)).toBe(acknowledged.json);
    expect(store.getJson(7n)).toContain('"name":"Renamed ');
    expect(store.size).toBe(51);
    await vi.waitFor(async () => expect(ids(await filePets())).toContain(51n), {
      timeout: HANG_MS / 2,
    });
    expect(logs.join("\n")).toMatch(/Kept pet 51, newer than every pet the edit holds/);
    const next = await store.create({ name: "Next", categoryId: 1n });
    expect(next.pet.id).toBe(52n);
    expect(store.getJson(51n)).toBe(acknowledged.json);
  });

  it("keeps a pet that was acknowledged but not yet in the file, whatever the edit holds", async () => {
    const store = await openStore({ seed: 3, flushIntervalMs: 60_000 });
    const acknowledged = await store.create({ name: "Pending", categoryId: 1n });
    const three = parseJson(store.getJson(3n)!) as Pet;
    // Deletes 2 and holds a pet with an id above the pending one's: the pending pet stays.
    const byHand: Pet = { id: 90n, name: "By hand", categoryId: 1n };
    await writeFile(file, fileOf([{ id: 1n, name: "One", categoryId: 1n }, three, byHand]));
    await store.close();
    expect(ids(await filePets())).toEqual([1n, 3n, 4n, 90n]);
    const again = await openStore();
    expect(again.getJson(4n)).toBe(acknowledged.json);
    expect(again.getJson(2n)).toBeUndefined();
    await again.close();
    // Stopped, the person deletes the two newest: their ids stay used.
    await writeFile(file, fileOf([{ id: 1n, name: "One", categoryId: 1n }, three]));
    const third = await openStore();
    expect((await third.create({ name: "Next", categoryId: 1n })).pet.id).toBe(91n);
  });
});

describe("a deliberate deletion by hand", () => {
  it("of pets the copy knew is adopted while serving, and their ids are not given again", async () => {
    const store = await openStore({ seed: 10, flushIntervalMs: 20 });
    const pets = allPets(store);
    await writeFile(file, fileOf(pets.filter((p) => p.id !== 3n && p.id !== 9n)));
    await pickedUp();
    expect(store.size).toBe(8);
    expect(store.getJson(3n)).toBeUndefined();
    expect(store.getJson(9n)).toBeUndefined();
    expect(logs.join("\n")).toContain("it deleted 2");
    expect((await store.create({ name: "Next", categoryId: 1n })).pet.id).toBe(11n);
  });

  it("of the newest pets needs serve stopped; their ids are still never given again", async () => {
    const store = await openStore({ seed: 10, flushIntervalMs: 20 });
    const newest = await store.create({ name: "Newest", categoryId: 1n });
    await vi.waitFor(async () => expect(ids(await filePets())).toContain(11n), {
      timeout: HANG_MS / 2,
    });
    const withoutNewest = fileOf(allPets(store).filter((p) => p.id !== 11n));
    // While serving, an edit without the newest pet looks like a copy read before it.
    await writeFile(file, withoutNewest);
    await pickedUp();
    expect(store.getJson(11n)).toBe(newest.json);
    // Stopped, the file is the person's: what they save is what the next start serves.
    await store.close();
    await writeFile(file, withoutNewest);
    const again = await openStore({ flushIntervalMs: 20 });
    expect(again.size).toBe(10);
    expect(again.getJson(11n)).toBeUndefined();
    expect((await again.create({ name: "After", categoryId: 1n })).pet.id).toBe(12n);
  });
});

describe("ids", () => {
  it("are never given out twice across edits, resets and restarts", async () => {
    const given: bigint[] = [];
    const create = async (store: PetStore) =>
      given.push((await store.create({ name: `P${given.length}`, categoryId: 1n })).pet.id);

    let store = await openStore({ seed: 2, flushIntervalMs: 20 });
    await create(store);
    await create(store);
    await store.reset();
    await create(store);
    await store.close();
    // Stopped: the person deletes every pet above the opening ones.
    await writeFile(file, fileOf((await filePets()).filter((p) => p.id <= 2n)));
    store = await openStore({ flushIntervalMs: 20 });
    await create(store);
    const pets = allPets(store);
    await writeFile(file, fileOf(pets.filter((p) => p.id !== 1n)));
    await pickedUp();
    await create(store);
    await store.reset();
    await create(store);
    await store.close();
    store = await openStore();
    await create(store);
    expect(given).toEqual([3n, 4n, 5n, 6n, 7n, 8n, 9n]);
    await store.close();
    // A missing or empty file is a new store: its ids start again from its pets.
    await writeFile(file, "");
    const fresh = await openStore({ seed: 2 });
    expect((await fresh.create({ name: "New three", categoryId: 1n })).pet.id).toBe(3n);
  });
});
