/**
 * The behaviour every PetStore shares, run against the memory twin and the file
 * store alike (see memory.test.ts and file-store.test.ts).
 */
import { afterEach, describe, expect, it } from "vitest";
import { parseJson } from "../../../src/schema/json.js";
import { INT64_MAX, type Pet } from "../../../src/schema/pet.js";
import { StoreError, type PetStore } from "../../../src/server/store/memory.js";

export type OpenStore = (pets?: Pet[]) => Promise<PetStore>;

const pet = (id: bigint, status?: Pet["status"], name = `Pet ${id}`): Pet =>
  status === undefined ? { id, name, categoryId: 1n } : { id, name, categoryId: 1n, status };

export function describeStoreContract(label: string, open: OpenStore): void {
  describe(`${label}: PetStore behaviour`, () => {
    const opened: PetStore[] = [];
    const openStore: OpenStore = async (pets) => {
      const store = await open(pets);
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });

    it("lists pets by id ascending whatever order they were given in", async () => {
      const store = await openStore([pet(30n), pet(2n), pet(10n)]);
      const ids = (parseJson(store.listJson({ limit: 100 })) as Pet[]).map((p) => p.id);
      expect(ids).toEqual([2n, 10n, 30n]);
    });

    it("an empty store lists an empty array", async () => {
      const store = await openStore();
      expect(store.listJson({ limit: 20 })).toBe("[]");
      expect(store.size).toBe(0);
    });

    it("filters by status and stops at limit", async () => {
      const store = await openStore([
        pet(1n, "available"),
        pet(2n, "sold"),
        pet(3n, "available"),
        pet(4n, "pending"),
        pet(5n, "available"),
        pet(6n),
      ]);
      const ids = (json: string) => (parseJson(json) as Pet[]).map((p) => p.id);
      expect(ids(store.listJson({ limit: 2, status: "available" }))).toEqual([1n, 3n]);
      expect(ids(store.listJson({ limit: 20, status: "available" }))).toEqual([1n, 3n, 5n]);
      expect(ids(store.listJson({ limit: 20, status: "sold" }))).toEqual([2n]);
      expect(ids(store.listJson({ limit: 20, status: "pending" }))).toEqual([4n]);
      expect(ids(store.listJson({ limit: 3 }))).toEqual([1n, 2n, 3n]);
      expect(ids(store.listJson({ limit: 100 }))).toEqual([1n, 2n, 3n, 4n, 5n, 6n]);
    });

    it("list is the join of canonical pet JSON", async () => {
      const store = await openStore([pet(1n, "sold", 'Rex "the" Dog'), pet(2n)]);
      expect(store.listJson({ limit: 20 })).toBe(
        '[{"id":1,"name":"Rex \\"the\\" Dog","categoryId":1,"status":"sold"},' +
          '{"id":2,"name":"Pet 2","categoryId":1}]',
      );
    });

    it("gets one pet's canonical JSON by id, undefined when absent", async () => {
      const store = await openStore([pet(1n, "sold"), pet(7n, "pending")]);
      expect(store.getJson(7n)).toBe('{"id":7,"name":"Pet 7","categoryId":1,"status":"pending"}');
      expect(store.getJson(2n)).toBeUndefined();
      expect(store.getJson(-1n)).toBeUndefined();
      expect(store.getJson(INT64_MAX)).toBeUndefined();
    });

    it("assigns id 1 in an empty store and defaults status to available", async () => {
      const store = await openStore();
      const created = await store.create({ name: "Luna", categoryId: 2n });
      expect(created.pet).toEqual({ id: 1n, name: "Luna", categoryId: 2n, status: "available" });
      expect(created.json).toBe('{"id":1,"name":"Luna","categoryId":2,"status":"available"}');
      expect(store.getJson(1n)).toBe(created.json);
      expect(store.listJson({ limit: 20, status: "available" })).toBe(`[${created.json}]`);
      expect(store.size).toBe(1);
    });

    it("assigns one above the largest id, at least 1", async () => {
      const store = await openStore([pet(5n), pet(41n), pet(3n)]);
      const created = await store.create({ name: "Milo", categoryId: 1n, status: "pending" });
      expect(created.pet.id).toBe(42n);
      expect(created.pet.status).toBe("pending");
      const negative = await openStore([pet(-7n)]);
      expect((await negative.create({ name: "Nala", categoryId: 1n })).pet.id).toBe(1n);
    });

    it("concurrent creates get distinct consecutive ids, listed in order", async () => {
      const store = await openStore([pet(10n)]);
      const created = await Promise.all(
        Array.from({ length: 50 }, (_, i) => store.create({ name: `P${i}`, categoryId: 1n })),
      );
      const ids = created.map((c) => c.pet.id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => 11n + BigInt(i)));
      const listed = (parseJson(store.listJson({ limit: 100 })) as Pet[]).map((p) => p.id);
      expect(listed).toEqual([10n, ...ids]);
      expect(store.size).toBe(51);
    });

    it("keeps ids and categoryIds above 2^53 exact", async () => {
      const big = 9007199254740993n; // 2^53 + 1: a double would round it
      const store = await openStore([{ id: big, name: "Big", categoryId: -INT64_MAX - 1n }]);
      expect(store.getJson(big)).toBe(
        '{"id":9007199254740993,"name":"Big","categoryId":-9223372036854775808}',
      );
      const created = await store.create({ name: "Next", categoryId: INT64_MAX });
      expect(created.pet.id).toBe(9007199254740994n);
      expect(created.json).toBe(
        '{"id":9007199254740994,"name":"Next","categoryId":9223372036854775807,"status":"available"}',
      );
      expect(store.getJson(9007199254740994n)).toBe(created.json);
    });

    it("refuses a pet that is not valid, whatever the caller checked", async () => {
      const store = await openStore();
      const error = await store.create({ name: " ", categoryId: 1n }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).code).toBe("invalid");
      expect((error as StoreError).message).toContain("name must be a non-blank string");
      expect(store.size).toBe(0);
    });

    it("reset brings back the pets it was opened with; ids continue above every id used", async () => {
      const store = await openStore([pet(3n, "sold"), pet(1n)]);
      const before = store.listJson({ limit: 100 });
      const revision = store.revision;
      await store.create({ name: "Gone", categoryId: 1n });
      await store.create({ name: "Gone too", categoryId: 1n });
      await store.reset();
      expect(store.listJson({ limit: 100 })).toBe(before);
      expect(store.listJson({ limit: 100, status: "available" })).toBe("[]");
      expect(store.size).toBe(2);
      expect(store.getJson(4n)).toBeUndefined();
      expect(store.revision).not.toBe(revision);
      // 4 and 5 were given to pets the reset removed: never given out again.
      expect((await store.create({ name: "Again", categoryId: 1n })).pet.id).toBe(6n);
      await store.reset();
      expect(store.listJson({ limit: 100 })).toBe(before);
      expect((await store.create({ name: "Once more", categoryId: 1n })).pet.id).toBe(7n);
    });

    it("reset of a store opened empty empties it", async () => {
      const store = await openStore();
      await store.create({ name: "Gone", categoryId: 1n });
      await store.reset();
      expect(store.size).toBe(0);
      expect(store.listJson({ limit: 20 })).toBe("[]");
      expect((await store.create({ name: "First", categoryId: 1n })).pet.id).toBe(2n);
    });

    it("refuses a create with id_space_exhausted when the largest id is 2^63-1", async () => {
      const store = await openStore([pet(INT64_MAX, "sold")]);
      const error = await store.create({ name: "Late", categoryId: 1n }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).code).toBe("id_space_exhausted");
      expect((error as StoreError).message).toContain("9223372036854775807");
      expect(store.size).toBe(1);
    });
  });
}
