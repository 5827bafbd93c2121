/** The file store's reset: back to the pets of the opening, durably, with the store's file protections. */
import { mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { petToJson, type Pet } from "../../../src/schema/pet.js";
import { openFileStore, type FileStoreOptions } from "../../../src/server/store/file-store.js";
import { StoreError, type PetStore } from "../../../src/server/store/memory.js";
import { HANG_MS } from "../../limits.js";

const canonicalFile = (pets: Pet[]) =>
  pets.length === 0 ? "[]\n" : "[\n" + pets.map(petToJson).join(",\n") + "\n]\n";
const pet = (id: bigint, name = `Pet ${id}`): Pet => ({
  id,
  name,
  categoryId: 1n,
  status: "available",
});

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("file store reset", () => {
  let file: string;
  let logs: string[];
  const open: PetStore[] = [];

  beforeEach(async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "petstore-reset-"));
    dirs.push(dir);
    file = path.join(dir, "pets.json");
    logs = [];
  });
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close().catch(() => {});
  });

  async function openStore(options: Partial<FileStoreOptions> = {}): Promise<PetStore> {
    const store = await openFileStore({ file, log: (line) => logs.push(line), ...options });
    open.push(store);
    return store;
  }
  const fileText = () => readFile(file, "utf8");
  const walText = () => readFile(`${file}.journal`, "utf8");

  it("writes the file as it was opened, empties the write-ahead log, and survives a restart", async () => {
    const opening =
      '[\n{"id":1,"name":"Pet 1","categoryId":1,"status":"available"},\n' +
      '{"id":2,"name":"Two","categoryId":1,"status":"available"}\n]\n';
    await writeFile(file, opening);
    // No maintenance tick: the created pets are only in the write-ahead log when reset runs.
    const store = await openStore({ flushIntervalMs: 60_000 });
    for (let i = 0; i < 5; i++) await store.create({ name: `Gone ${i}`, categoryId: 1n });
    expect(await walText()).toContain("Gone 4");
    await store.reset();
    expect(await fileText()).toBe(opening);
    // No pet left in the write-ahead log, only the mark of the ids used: 3 to 7 are not given again.
    expect(await walText()).toBe('{"idsUsedUpTo":7}\n');
    const kept = await store.create({ name: "Kept", categoryId: 1n });
    expect(kept.pet.id).toBe(8n);
    await store.close();
    expect(await fileText()).toBe(
      opening.slice(0, -"\n]\n".length) +
        ',\n{"id":8,"name":"Kept","categoryId":1,"status":"available"}\n]\n',
    );
    const again = await openStore();
    expect(again.size).toBe(3);
    expect(again.getJson(8n)).toBe(kept.json);
    expect((await again.create({ name: "After restart", categoryId: 1n })).pet.id).toBe(9n);
  });

  it("goes back to the seed of a new file", async () => {
    const store = await openStore({ seed: 7, flushIntervalMs: 10 });
    await store.create({ name: "Gone", categoryId: 1n });
    await vi.waitFor(async () => expect(await fileText()).toContain("Gone"), {
      timeout: HANG_MS / 2,
    });
    await store.reset();
    expect(await fileText()).toBe(
      "[\n" +
        '{"id":1,"name":"Murphy","categoryId":1,"status":"available"},\n' +
        '{"id":2,"name":"Scout","categoryId":5,"status":"available"},\n' +
        '{"id":3,"name":"Ginger","categoryId":2,"status":"available"},\n' +
        '{"id":4,"name":"Sasha","categoryId":2,"status":"available"},\n' +
        '{"id":5,"name":"Rocky","categoryId":1,"status":"available"},\n' +
        '{"id":6,"name":"Sadie","categoryId":2,"status":"available"},\n' +
        '{"id":7,"name":"Winston","categoryId":3,"status":"available"}\n]\n',
    );
    expect(store.size).toBe(7);
  });

  it("goes back to the opening pets after an edit was adopted, and overwrites the edit", async () => {
    await writeFile(file, canonicalFile([pet(1n)]));
    const store = await openStore({ flushIntervalMs: 10 });
    await writeFile(file, canonicalFile([pet(1n), pet(40n, "By hand")]));
    await vi.waitFor(() => expect(store.getJson(40n)).toBeDefined(), { timeout: HANG_MS / 2 });
    await store.reset();
    expect(store.getJson(40n)).toBeUndefined();
    expect(await fileText()).toBe(
      '[\n{"id":1,"name":"Pet 1","categoryId":1,"status":"available"}\n]\n',
    );
    // The reset file is not taken for an edit.
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(logs.filter((line) => line.includes("Picked up an edit"))).toHaveLength(1);
  });

  it("keeps every create acknowledged after it, and none acknowledged before it", async () => {
    await writeFile(file, canonicalFile([pet(1n)]));
    const store = await openStore({ flushIntervalMs: 5 });
    const before = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.create({ name: `Before ${i}`, categoryId: 1n })),
    );
    const racing = Array.from({ length: 40 }, (_, i) =>
      store.create({ name: `Racing ${i}`, categoryId: 1n }),
    );
    await store.reset();
    const after = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.create({ name: `After ${i}`, categoryId: 1n })),
    );
    await Promise.all(racing);
    const served = (id: bigint) => store.getJson(id);
    for (const created of after) expect(served(created.pet.id)).toBe(created.json);
    for (const created of before) expect(served(created.pet.id) ?? "").not.toContain("Before");
    const size = store.size;
    await store.close();
    const again = await openStore();
    expect(again.size).toBe(size);
    for (const created of after) expect(again.getJson(created.pet.id)).toBe(created.json);
  });

  it("never writes through a symlink at <file>.tmp: refused, and the pets served are unchanged", async () => {
    await writeFile(file, canonicalFile([pet(1n)]));
    const store = await openStore({ flushIntervalMs: 60_000 });
    const created = await store.create({ name: "Stays", categoryId: 1n });
    const target = path.join(path.dirname(file), "target.txt");
    await writeFile(target, "not yours\n");
    await symlink(target, `${file}.tmp`);
    const error = await store.reset().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).message).toContain("is a symbolic link");
    expect(await readFile(target, "utf8")).toBe("not yours\n");
    expect(store.getJson(2n)).toBe(created.json);
    await rm(`${file}.tmp`);
    await store.reset();
    expect(store.getJson(2n)).toBeUndefined();
  });

  it("is refused once the store is closed", async () => {
    const store = await openStore();
    await store.close();
    await expect(store.reset()).rejects.toThrow(/closed/);
  });
});
