/** Pets written by hand without an `id` get the next ids, and the file is rewritten with them. */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { petToJson, type Pet } from "../../../src/schema/pet.js";
import { parseLog, parsePetFile } from "../../../src/server/store/pet-file.js";
import { openFileStore, type FileStoreOptions } from "../../../src/server/store/file-store.js";
import { StoreError, type PetStore } from "../../../src/server/store/memory.js";
import { HANG_MS } from "../../limits.js";

const canonicalFile = (pets: Pet[]) =>
  pets.length === 0 ? "[]\n" : "[\n" + pets.map(petToJson).join(",\n") + "\n]\n";
const pet = (id: bigint, name = `Pet ${id}`, status?: Pet["status"]): Pet =>
  status === undefined ? { id, name, categoryId: 1n } : { id, name, categoryId: 1n, status };

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("pets without an id in the file", () => {
  let file: string;
  let logs: string[];
  const open: PetStore[] = [];

  beforeEach(async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "petstore-unnumbered-"));
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

  it("get the next ids in file order at start-up, and the file is rewritten with them", async () => {
    await writeFile(
      file,
      '[\n  {"name": "First", "categoryId": 2},\n  {"id": 5, "name": "Five", "categoryId": 1},\n' +
        '  {"name": "Second", "categoryId": 3, "status": "sold"}\n]\n',
    );
    const store = await openStore();
    expect(store.size).toBe(3);
    expect(store.getJson(6n)).toBe('{"id":6,"name":"First","categoryId":2}');
    expect(store.getJson(7n)).toBe('{"id":7,"name":"Second","categoryId":3,"status":"sold"}');
    expect(await fileText()).toBe(
      '[\n{"id":5,"name":"Five","categoryId":1},\n{"id":6,"name":"First","categoryId":2},\n' +
        '{"id":7,"name":"Second","categoryId":3,"status":"sold"}\n]\n',
    );
    expect(logs.join("\n")).toContain(`Gave 2 pets without an id in ${file} the ids 6 to 7`);
    expect((await store.create({ name: "Next", categoryId: 1n })).pet.id).toBe(8n);
  });

  it("at start-up get ids above the acknowledged pets of the write-ahead log too", async () => {
    await writeFile(
      file,
      '[\n{"id":1,"name":"One","categoryId":1},\n{"name":"New","categoryId":1}\n]\n',
    );
    await writeFile(`${file}.journal`, petToJson(pet(2n, "Acknowledged", "available")) + "\n");
    const store = await openStore();
    expect(store.getJson(2n)).toContain("Acknowledged");
    expect(store.getJson(3n)).toBe('{"id":3,"name":"New","categoryId":1}');
    expect(await fileText()).toBe(
      '[\n{"id":1,"name":"One","categoryId":1},\n' +
        '{"id":2,"name":"Acknowledged","categoryId":1,"status":"available"},\n' +
        '{"id":3,"name":"New","categoryId":1}\n]\n',
    );
  });

  it("in an edit made while serving get ids above every id used, and the file is rewritten", async () => {
    await writeFile(file, canonicalFile([pet(1n), pet(2n), pet(9n)]));
    const store = await openStore({ flushIntervalMs: 10 });
    const created = await store.create({ name: "Acknowledged", categoryId: 1n });
    expect(created.pet.id).toBe(10n);
    // The edit deletes 2 and lacks the acknowledged 10: the new pet must take neither id.
    await writeFile(
      file,
      '[\n{"id":1,"name":"Pet 1","categoryId":1},\n{"id":9,"name":"Pet 9","categoryId":1},\n' +
        '{"name":"By hand","categoryId":4}\n]\n',
    );
    const byHand = '{"id":11,"name":"By hand","categoryId":4}';
    await vi.waitFor(() => expect(store.getJson(11n)).toBe(byHand), { timeout: HANG_MS / 2 });
    await vi.waitFor(
      async () =>
        expect(await fileText()).toBe(
          '[\n{"id":1,"name":"Pet 1","categoryId":1},\n{"id":9,"name":"Pet 9","categoryId":1},\n' +
            `{"id":10,"name":"Acknowledged","categoryId":1,"status":"available"},\n${byHand}\n]\n`,
        ),
      { timeout: HANG_MS / 2 },
    );
    expect(store.getJson(2n)).toBeUndefined();
    expect((await store.create({ name: "After", categoryId: 1n })).pet.id).toBe(12n);
  });

  it("are still validated, and messages keep the pet's index and line", async () => {
    const text =
      '[\n{"name":"No id","categoryId":1},\n{"id":3,"name":"A","categoryId":1},\n' +
      '{"id":3,"name":"B","categoryId":1},\n{"name":"No id either","categoryId":1}\n]\n';
    expect(() => parsePetFile(text, "f.json")).toThrow(
      /index 1 \(line 3\) and index 2 \(line 4\) both have id 3/,
    );
    const blank = '[\n{"name":"No id","categoryId":1},\n{"name":" ","categoryId":1}\n]\n';
    await writeFile(file, blank);
    const error = await openStore().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).message).toMatch(/index 1 \(line 3\).*name must be a non-blank/);
    expect(await fileText()).toBe(blank);
  });

  it("are not accepted in the write-ahead log: a line without an id ends it like a torn write", () => {
    const wal =
      petToJson(pet(1n)) + "\n" + '{"name":"No id","categoryId":1}\n' + petToJson(pet(2n)) + "\n";
    const read = parseLog(wal);
    expect(read.pets.map((p) => petToJson(p))).toEqual([petToJson(pet(1n))]);
    expect(read.tornBytes).toBeGreaterThan(0);
  });
});
