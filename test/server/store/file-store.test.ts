import { spawnSync } from "node:child_process";
import { existsSync, readlinkSync } from "node:fs";
import { mkdtemp, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseJson } from "../../../src/schema/json.js";
import { INT64_MAX, INT64_MIN, petToJson, type Pet } from "../../../src/schema/pet.js";
import { openFileStore, type FileStoreOptions } from "../../../src/server/store/file-store.js";
import { StoreError, type PetStore } from "../../../src/server/store/memory.js";
import { describeStoreContract } from "./store-contract.js";
import { HANG_MS } from "../../limits.js";

/** The file as this store writes it: one canonical pet per line. */
const canonicalFile = (pets: Pet[]) =>
  pets.length === 0 ? "[]\n" : "[\n" + pets.map(petToJson).join(",\n") + "\n]\n";

/** The file `seed: 25` writes, as a person reads it (demo pets from the seeded generator). */
const SEEDED_25 = [
  "[",
  '{"id":1,"name":"Murphy","categoryId":1,"status":"available"},',
  '{"id":2,"name":"Scout","categoryId":5,"status":"available"},',
  '{"id":3,"name":"Ginger","categoryId":2,"status":"available"},',
  '{"id":4,"name":"Sasha","categoryId":2,"status":"available"},',
  '{"id":5,"name":"Rocky","categoryId":1,"status":"available"},',
  '{"id":6,"name":"Sadie","categoryId":2,"status":"available"},',
  '{"id":7,"name":"Winston","categoryId":3,"status":"available"},',
  '{"id":8,"name":"Bear","categoryId":1,"status":"available"},',
  '{"id":9,"name":"Thor","categoryId":3,"status":"available"},',
  '{"id":10,"name":"Stella","categoryId":2,"status":"available"},',
  '{"id":11,"name":"Archie","categoryId":1,"status":"pending"},',
  '{"id":12,"name":"Ziggy","categoryId":3,"status":"sold"},',
  '{"id":13,"name":"Lola","categoryId":2,"status":"available"},',
  '{"id":14,"name":"Ruby","categoryId":1,"status":"available"},',
  '{"id":15,"name":"Sadie","categoryId":2,"status":"available"},',
  '{"id":16,"name":"Bailey","categoryId":1,"status":"available"},',
  '{"id":17,"name":"Murphy","categoryId":3,"status":"available"},',
  '{"id":18,"name":"Sasha","categoryId":2,"status":"available"},',
  '{"id":19,"name":"Leo","categoryId":2,"status":"sold"},',
  '{"id":20,"name":"Sunny","categoryId":2,"status":"sold"},',
  '{"id":21,"name":"Nova","categoryId":4,"status":"available"},',
  '{"id":22,"name":"Luna","categoryId":3,"status":"available"},',
  '{"id":23,"name":"Misty","categoryId":2,"status":"sold"},',
  '{"id":24,"name":"Hank","categoryId":1,"status":"pending"},',
  '{"id":25,"name":"Peanut","categoryId":1,"status":"sold"}',
  "]",
  "",
].join("\n");

const pet = (id: bigint, name = `Pet ${id}`, status: Pet["status"] = "available"): Pet => ({
  id,
  name,
  categoryId: 1n,
  status,
});

const dirs: string[] = [];
async function freshDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "petstore-store-"));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describeStoreContract("file store", async (pets) => {
  const file = path.join(await freshDir(), "pets.json");
  if (pets) await writeFile(file, canonicalFile(pets));
  return openFileStore({ file, flushIntervalMs: 20 });
});

async function errorOf(promise: Promise<unknown>): Promise<StoreError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreError);
  return error as StoreError;
}

describe("file store", () => {
  let dir: string;
  let file: string;
  let logs: string[];
  const open: PetStore[] = [];

  beforeEach(async () => {
    dir = await freshDir();
    file = path.join(dir, "pets.json");
    logs = [];
  });
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close().catch(() => {});
  });

  async function openStore(options: Partial<FileStoreOptions> = {}): Promise<PetStore> {
    const store = await openFileStore({
      file,
      log: (line) => logs.push(line),
      flushIntervalMs: 20,
      ...options,
    });
    open.push(store);
    return store;
  }

  async function reopen(store: PetStore, options: Partial<FileStoreOptions> = {}) {
    await store.close();
    return openStore(options);
  }

  const fileText = () => readFile(file, "utf8");
  const filePets = async () => parseJson(await fileText()) as Pet[];

  describe("the file", () => {
    it("is created, empty, when missing", async () => {
      const store = await openStore();
      expect(store.size).toBe(0);
      expect(await fileText()).toBe("[]\n");
      expect(logs.join("\n")).toContain(`Created ${file}`);
    });

    it("counts as an empty store when it exists with 0 bytes", async () => {
      await writeFile(file, "");
      const store = await openStore();
      expect(store.size).toBe(0);
      await store.create({ name: "Luna", categoryId: 1n });
      await store.close();
      expect((await filePets()).map((p) => p.name)).toEqual(["Luna"]);
    });

    it("is filled with demo pets by seed when new, and seed is ignored for an existing file", async () => {
      const store = await openStore({ seed: 25 });
      expect(store.size).toBe(25);
      expect(await fileText()).toBe(SEEDED_25);
      const again = await reopen(store, { seed: 5 });
      expect(again.size).toBe(25);
      expect(logs.join("\n")).toContain("already exists (25 pets): --seed 5 is ignored");
    });

    it("holds one canonical pet per line and is valid JSON", async () => {
      const store = await openStore({ seed: 3 });
      await store.create({ name: 'Rex "the" Dog', categoryId: 2n, status: "pending" });
      await store.create({ name: "Line\nbreak", categoryId: 3n });
      await store.close();
      const lines = (await fileText()).split("\n");
      expect(lines[0]).toBe("[");
      expect(lines.slice(-2)).toEqual(["]", ""]);
      expect(lines.slice(1, -2)).toEqual([
        '{"id":1,"name":"Murphy","categoryId":1,"status":"available"},',
        '{"id":2,"name":"Scout","categoryId":5,"status":"available"},',
        '{"id":3,"name":"Ginger","categoryId":2,"status":"available"},',
        '{"id":4,"name":"Rex \\"the\\" Dog","categoryId":2,"status":"pending"},',
        '{"id":5,"name":"Line\\nbreak","categoryId":3,"status":"available"}',
      ]);
      const pets = await filePets();
      expect(pets[3]).toEqual({ id: 4n, name: 'Rex "the" Dog', categoryId: 2n, status: "pending" });
      expect(pets[4]!.name).toBe("Line\nbreak");
    });

    it("reflects acknowledged creates within the flush interval while serving", async () => {
      const store = await openStore({ flushIntervalMs: 30 });
      const { json } = await store.create({ name: "Milo", categoryId: 1n });
      await vi.waitFor(async () => expect(await fileText()).toBe(`[\n${json}\n]\n`), {
        timeout: HANG_MS / 2,
        interval: 10,
      });
      expect(existsSync(`${file}.journal`)).toBe(true);
    });

    it("over 1 MiB, is written again once the pets it lacks make a quarter of it, and at close", async () => {
      const many = Array.from({ length: 20_000 }, (_, i) =>
        pet(BigInt(i + 1), `Pet number ${i + 1}`),
      );
      await writeFile(file, canonicalFile(many));
      const size = (await readFile(file)).length;
      expect(size).toBeGreaterThan(1024 * 1024);
      const store = await openStore({ flushIntervalMs: 10 });
      const first = await store.create({ name: "Waits in the log", categoryId: 1n });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await readFile(file)).length).toBe(size);
      expect(await readFile(`${file}.journal`, "utf8")).toContain(first.json);
      // A quarter of the file in new pets (each line under 70 bytes): written within a tick or two.
      await Promise.all(
        Array.from({ length: Math.ceil(size / 4 / 60) }, (_, i) =>
          store.create({ name: `Bulk ${i}`, categoryId: 1n }),
        ),
      );
      await vi.waitFor(async () => expect(await fileText()).toContain(first.json), {
        timeout: HANG_MS / 2,
        interval: 20,
      });
      const last = await store.create({ name: "Last", categoryId: 1n });
      await store.close();
      expect(await fileText()).toContain(last.json);
      expect((await filePets()).length).toBe(store.size);
    });

    it("is exactly up to date after close; the write-ahead log keeps only the mark of the ids used", async () => {
      const store = await openStore({ flushIntervalMs: 60_000 });
      const created = await Promise.all(
        [1, 2, 3].map((i) => store.create({ name: `P${i}`, categoryId: BigInt(i) })),
      );
      // Durable before acknowledged: the pets are in the write-ahead log, not in the file yet.
      const wal = await readFile(`${file}.journal`, "utf8");
      for (const c of created) expect(wal).toContain(c.json);
      expect(await fileText()).toBe("[]\n");
      await store.close();
      expect(await fileText()).toBe(
        '[\n{"id":1,"name":"P1","categoryId":1,"status":"available"},\n' +
          '{"id":2,"name":"P2","categoryId":2,"status":"available"},\n' +
          '{"id":3,"name":"P3","categoryId":3,"status":"available"}\n]\n',
      );
      expect(await readFile(`${file}.journal`, "utf8")).toBe('{"idsUsedUpTo":3}\n');
      expect(existsSync(`${file}.lock`)).toBe(false);
    });

    it("keeps int64 extremes exact across a restart", async () => {
      const store = await openStore();
      const max = await store.create({ name: "Max", categoryId: INT64_MAX });
      const min = await store.create({ name: "Min", categoryId: INT64_MIN });
      const again = await reopen(store);
      expect(again.getJson(max.pet.id)).toBe(
        `{"id":1,"name":"Max","categoryId":9223372036854775807,"status":"available"}`,
      );
      expect(again.getJson(min.pet.id)).toBe(
        `{"id":2,"name":"Min","categoryId":-9223372036854775808,"status":"available"}`,
      );
      expect((await again.create({ name: "Next", categoryId: 1n })).pet.id).toBe(3n);
    });

    it("serves big ids written by hand exactly, in any layout, and writes them back one per line", async () => {
      const handWritten =
        "[\n" +
        '  { "name": "Ace", "id": 9223372036854775805, "categoryId": -9223372036854775808 },\n' +
        '  {\n    "id": 9007199254740993,\n    "categoryId": 9007199254740995,\n    "name": "\\u00c9clair",\n    "status": "sold"\n  }\n' +
        "]\n";
      await writeFile(file, handWritten);
      const store = await openStore();
      expect(store.getJson(9223372036854775805n)).toBe(
        '{"id":9223372036854775805,"name":"Ace","categoryId":-9223372036854775808}',
      );
      expect(store.listJson({ limit: 1, status: "sold" })).toBe(
        '[{"id":9007199254740993,"name":"Éclair","categoryId":9007199254740995,"status":"sold"}]',
      );
      const created = await store.create({ name: "Last", categoryId: 1n });
      expect(created.pet.id).toBe(9223372036854775806n);
      await store.close();
      expect(await fileText()).toBe(
        '[\n{"id":9007199254740993,"name":"\u00c9clair","categoryId":9007199254740995,"status":"sold"},\n' +
          '{"id":9223372036854775805,"name":"Ace","categoryId":-9223372036854775808},\n' +
          `${created.json}\n]\n`,
      );
    });
  });

  it("says which directory is missing", async () => {
    const error = await errorOf(openStore({ file: path.join(dir, "no-such-dir", "pets.json") }));
    expect(error.code).toBe("io");
    expect(error.message).toContain(
      `the directory ${path.join(dir, "no-such-dir")} does not exist`,
    );
  });

  describe("the lock", () => {
    it("refuses a second opener of the same file, naming the process", async () => {
      await openStore();
      const error = await errorOf(openStore());
      expect(error.code).toBe("locked");
      expect(error.message).toContain(`process`);
      expect(error.message).toContain(`${file}.lock`);
    });

    it("refuses when the lock holds the pid of another running process", async () => {
      await writeFile(`${file}.lock`, `${process.ppid}\n`);
      const error = await errorOf(openStore());
      expect(error.code).toBe("locked");
      expect(error.message).toContain(`process ${process.ppid}`);
      expect(existsSync(file)).toBe(false);
    });

    it("takes over a stale lock whose process is gone", async () => {
      const gone = spawnSync(process.execPath, ["-p", "process.pid"], { encoding: "utf8" });
      const deadPid = Number(gone.stdout.trim());
      await writeFile(`${file}.lock`, `${deadPid}\n`);
      const store = await openStore();
      expect(await readFile(`${file}.lock`, "utf8")).toBe(`${process.pid}\n`);
      expect(logs.join("\n")).toContain(`process ${deadPid}`);
      await store.close();
      expect(existsSync(`${file}.lock`)).toBe(false);
    });

    it("takes over a lock naming this process, which does not hold it (a killed server's pid, reused)", async () => {
      await writeFile(`${file}.lock`, `${process.pid}\n`);
      const store = await openStore();
      expect(logs.join("\n")).toContain(
        `Taking over ${file}.lock: it names this process (${process.pid})`,
      );
      const error = await errorOf(openStore());
      expect(error.message).toContain(`already being served by this process (${process.pid})`);
      await store.close();
      expect(existsSync(`${file}.lock`)).toBe(false);
    });

    it("refuses a lock file that is a symlink, naming it, and leaves it and its target alone", async () => {
      const victim = path.join(dir, "victim.txt");
      await writeFile(victim, "precious\n");
      await symlink(victim, `${file}.lock`);
      const error = await errorOf(openStore());
      expect(error.code).toBe("locked");
      expect(error.message).toContain(`${file}.lock is a symbolic link`);
      expect(readlinkSync(`${file}.lock`)).toBe(victim);
      expect(await readFile(victim, "utf8")).toBe("precious\n");
      expect(existsSync(file)).toBe(false);
    });

    it("never writes the pid through a symlink planted at the lock's private name", async () => {
      const victim = path.join(dir, "victim.txt");
      await writeFile(victim, "precious\n");
      await symlink(victim, `${file}.lock.${process.pid}`);
      const store = await openStore();
      expect(await readFile(victim, "utf8")).toBe("precious\n");
      expect(await readFile(`${file}.lock`, "utf8")).toBe(`${process.pid}\n`);
      await store.close();
    });
  });

  describe("a broken file at start-up", () => {
    it("is corrupt: names file, line and column, and is left byte for byte", async () => {
      const bytes = Buffer.from(
        '[\n{"id":1,"name":"A","categoryId":1},\n{"id":2,"name":"B" "categoryId":1}\n]\n',
      );
      await writeFile(file, bytes);
      const wal = '{"id":3,"name":"C","categoryId":1,"status":"available"}\n';
      await writeFile(`${file}.journal`, wal);
      const error = await errorOf(openStore());
      expect(error.code).toBe("invalid");
      expect(error.message).toContain(file);
      expect(error.message).toContain("line 3, column 20");
      expect(error.message).toContain("Fix the file");
      expect(await readFile(file)).toEqual(bytes);
      expect(await readFile(`${file}.journal`, "utf8")).toBe(wal);
      expect(existsSync(`${file}.lock`)).toBe(false);
    });

    it.each([
      [
        "a missing name",
        '[\n{"id":1,"name":"A","categoryId":1},\n{"id":2,"categoryId":1}\n]\n',
        /index 1 \(line 3\).*name is required/,
      ],
      [
        "a string categoryId",
        '[\n  {"id": 1, "name": "A", "categoryId": "5"}\n]\n',
        /index 0 \(line 2\).*categoryId must be an integer .*got the string "5"/,
      ],
      [
        "a duplicate id",
        '[\n{"id":7,"name":"A","categoryId":1},\n{"id":3,"name":"B","categoryId":1},\n{"id":7,"name":"C","categoryId":1}\n]\n',
        /index 0 \(line 2\) and index 2 \(line 4\) both have id 7/,
      ],
      ["not an array", '{"pets": []}\n', /must hold a JSON array of pets; it holds an object/],
      [
        "an unknown field",
        '[\n  {\n    "id": 1,\n    "name": "A",\n    "categoryId": 1\n  },\n  {\n    "id": 2,\n    "name": "B",\n    "categoryId": 1,\n    "colour": "red"\n  }\n]',
        /index 1 \(line 7\).*colour unknown field; allowed: id, name, categoryId, status/,
      ],
    ])("is invalid with %s: names the pet and field, file untouched", async (_, text, message) => {
      await writeFile(file, text);
      const error = await errorOf(openStore());
      expect(error.code).toBe("invalid");
      expect(error.message).toContain(file);
      expect(error.message).toMatch(message);
      expect(await fileText()).toBe(text);
    });
  });

  describe("recovery", () => {
    it("replays the write-ahead log after a crash, skipping pets already in the file and a torn last line", async () => {
      const inFile = [pet(1n), pet(2n), pet(3n)];
      await writeFile(file, canonicalFile(inFile));
      const replayed = [pet(4n, "Four"), pet(5n, "Five", "sold")];
      await writeFile(
        `${file}.journal`,
        [...[inFile[2]!, ...replayed].map((p) => petToJson(p) + "\n"), '{"id":6,"name":"Six"'].join(
          "",
        ),
      );
      await writeFile(`${file}.lock`, "999999999\n");
      const store = await openStore();
      expect(store.size).toBe(5);
      expect(store.getJson(5n)).toBe('{"id":5,"name":"Five","categoryId":1,"status":"sold"}');
      expect(store.getJson(6n)).toBeUndefined();
      expect(await fileText()).toBe(
        '[\n{"id":1,"name":"Pet 1","categoryId":1,"status":"available"},\n' +
          '{"id":2,"name":"Pet 2","categoryId":1,"status":"available"},\n' +
          '{"id":3,"name":"Pet 3","categoryId":1,"status":"available"},\n' +
          '{"id":4,"name":"Four","categoryId":1,"status":"available"},\n' +
          '{"id":5,"name":"Five","categoryId":1,"status":"sold"}\n]\n',
      );
      expect(await readFile(`${file}.journal`, "utf8")).toBe('{"idsUsedUpTo":5}\n');
      expect(logs.join("\n")).toMatch(/Ignoring the last 20 bytes .*never acknowledged/);
      expect(logs.join("\n")).toContain("Recovered 2 acknowledged pets");
      expect((await store.create({ name: "Six", categoryId: 1n })).pet.id).toBe(6n);
    });

    it("recovers a store the earlier store wrote: a log of the mark of the ids used and pets", async () => {
      // As the earlier store left them after a kill: pets 4 and 5 acknowledged, not yet
      // in the file; ids up to 9 used (6 to 9 by pets since deleted by hand).
      await writeFile(file, canonicalFile([pet(1n), pet(2n), pet(3n)]));
      await writeFile(
        `${file}.journal`,
        '{"idsUsedUpTo":9}\n' +
          petToJson(pet(4n, "Four")) +
          "\n" +
          petToJson(pet(5n, "Five")) +
          "\n",
      );
      const store = await openStore();
      expect(store.size).toBe(5);
      expect(store.getJson(5n)).toBe(petToJson(pet(5n, "Five")));
      expect((await filePets()).map((p) => p.id)).toEqual([1n, 2n, 3n, 4n, 5n]);
      expect(await readFile(`${file}.journal`, "utf8")).toBe('{"idsUsedUpTo":9}\n');
      expect((await store.create({ name: "Ten", categoryId: 1n })).pet.id).toBe(10n);
    });

    it("refuses a pet of the write-ahead log whose id the file holds as another pet, file untouched", async () => {
      const text = canonicalFile([pet(1n), pet(2n, "Edited")]);
      await writeFile(file, text);
      await writeFile(`${file}.journal`, petToJson(pet(2n, "Acknowledged")) + "\n");
      const error = await errorOf(openStore());
      expect(error.code).toBe("invalid");
      expect(error.message).toContain('"name":"Acknowledged"');
      expect(error.message).toContain(`${file}.journal`);
      expect(await fileText()).toBe(text);
    });
  });

  describe("edits made while serving", () => {
    it("are picked up; new ids continue above the edit's largest id", async () => {
      const store = await openStore({ seed: 3 });
      const seeded = parseJson(store.getJson(3n)!) as Pet;
      const revisionBefore = store.revision;
      const edited = canonicalFile([
        pet(1n, "Renamed"),
        seeded,
        pet(100n, "Added by hand", "pending"),
      ]);
      await writeFile(file, edited);
      await vi.waitFor(() => expect(store.getJson(100n)).toBeDefined(), { timeout: HANG_MS / 2 });
      expect(store.revision).not.toBe(revisionBefore);
      expect(store.size).toBe(3);
      expect(store.getJson(1n)).toContain("Renamed");
      expect(store.getJson(2n)).toBeUndefined();
      expect(logs.join("\n")).toContain("Picked up an edit");
      expect(logs.join("\n")).toContain("it deleted 1");
      const created = await store.create({ name: "After", categoryId: 1n });
      expect(created.pet.id).toBe(101n);
      await store.close();
      expect(await fileText()).toBe(
        '[\n{"id":1,"name":"Renamed","categoryId":1,"status":"available"},\n' +
          '{"id":3,"name":"Ginger","categoryId":2,"status":"available"},\n' +
          '{"id":100,"name":"Added by hand","categoryId":1,"status":"pending"},\n' +
          '{"id":101,"name":"After","categoryId":1,"status":"available"}\n]\n',
      );
    });

    it("are picked up when saved by rename, re-applying acknowledged pets the edit lacks", async () => {
      const store = await openStore({ seed: 2, flushIntervalMs: 60_000 });
      const acknowledged = await store.create({ name: "Acknowledged", categoryId: 1n });
      const edit = canonicalFile([pet(1n), pet(2n), pet(50n, "By hand")]);
      await writeFile(`${file}.edit`, edit);
      await rename(`${file}.edit`, file);
      await store.close();
      expect((await filePets()).map((p) => p.id)).toEqual([1n, 2n, 3n, 50n]);
      expect(await fileText()).toBe(
        canonicalFile([pet(1n), pet(2n)]).slice(0, -3) +
          `,\n${acknowledged.json},\n${petToJson(pet(50n, "By hand"))}\n]\n`,
      );
      const again = await openStore();
      expect(again.getJson(3n)).toBe(acknowledged.json);
      expect((await again.create({ name: "Next", categoryId: 1n })).pet.id).toBe(51n);
    });

    it("that are invalid are refused, never overwritten, and adopted once fixed", async () => {
      const store = await openStore({ seed: 2 });
      const broken = '[\n{"id":1,"name":"A","categoryId":1},\n{"id":2,\n';
      await writeFile(file, broken);
      await vi.waitFor(() => expect(logs.join("\n")).toContain("cannot be used"), {
        timeout: HANG_MS / 2,
      });
      expect(logs.join("\n")).toMatch(/line 4, column 1/);
      const created = await store.create({ name: "Kept", categoryId: 1n });
      expect(created.pet.id).toBe(3n);
      expect(store.size).toBe(3);
      // Several ticks later the broken file is still as the person left it.
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await fileText()).toBe(broken);
      const fixed = canonicalFile([pet(1n, "A"), pet(2n, "B")]);
      await writeFile(file, fixed);
      await vi.waitFor(
        async () => expect((await filePets()).map((p) => p.id)).toEqual([1n, 2n, 3n]),
        {
          timeout: HANG_MS / 2,
        },
      );
      expect(store.getJson(2n)).toBe('{"id":2,"name":"B","categoryId":1,"status":"available"}');
      expect(store.getJson(3n)).toBe(created.json);
    });

    it("that are invalid at close keep acknowledged pets in the write-ahead log for the next start", async () => {
      const store = await openStore({ flushIntervalMs: 60_000 });
      const created = await store.create({ name: "Kept", categoryId: 1n });
      await writeFile(file, "[oops]\n");
      await store.close();
      expect(await fileText()).toBe("[oops]\n");
      expect(await readFile(`${file}.journal`, "utf8")).toBe(created.json + "\n");
      expect(logs.join("\n")).toContain("stay in");
      await writeFile(file, "[]\n");
      const again = await openStore();
      expect(again.getJson(1n)).toBe(created.json);
    });

    it("that give an acknowledged id to another pet are refused and the file is not written", async () => {
      const store = await openStore({ flushIntervalMs: 60_000 });
      const created = await store.create({ name: "Acknowledged", categoryId: 1n });
      const conflicting = canonicalFile([pet(1n, "Someone else")]);
      await writeFile(file, conflicting);
      await store.close();
      expect(logs.join("\n")).toMatch(/where the pet .*"Acknowledged".* was acknowledged/);
      expect(await fileText()).toBe(conflicting);
      expect(await readFile(`${file}.journal`, "utf8")).toBe(created.json + "\n");
    });
  });
});
