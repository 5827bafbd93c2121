import { describe, expect, it } from "vitest";
import { PageCache } from "../../src/server/pet-routes.js";
import { createMemoryStore, type PetStore } from "../../src/server/store/memory.js";

/** A store whose list text and revision the test controls, counting the lists it makes. */
function countingStore(pets: PetStore) {
  const store = {
    lists: 0,
    text: undefined as string | undefined,
    bumped: 0,
    listJson: (options: Parameters<PetStore["listJson"]>[0]) => {
      store.lists++;
      return store.text ?? pets.listJson(options);
    },
    getJson: (id: bigint) => pets.getJson(id),
    create: (pet: Parameters<PetStore["create"]>[0]) => pets.create(pet),
    reset: () => pets.reset(),
    get size() {
      return pets.size;
    },
    get revision() {
      return pets.revision * 1000 + store.bumped;
    },
    close: () => pets.close(),
  };
  return store;
}

describe("the page cache", () => {
  it("serves the same bytes for the same page while the store is unchanged", () => {
    const store = countingStore(createMemoryStore([{ id: 1n, name: "A", categoryId: 1n }]));
    const pages = new PageCache(store);
    const first = pages.page({ limit: 5 });
    expect(first.toString()).toBe('[{"id":1,"name":"A","categoryId":1}]');
    expect(pages.page({ limit: 5 })).toBe(first);
    expect(store.lists).toBe(1);
    pages.page({ limit: 6 });
    pages.page({ limit: 5, status: "sold" });
    expect(store.lists).toBe(3);
  });

  it("rebuilds a page after a create", async () => {
    const store = countingStore(createMemoryStore());
    const pages = new PageCache(store);
    expect(pages.page({ limit: 5 }).toString()).toBe("[]");
    await store.create({ name: "B", categoryId: 2n });
    expect(pages.page({ limit: 5 }).toString()).toContain('"name":"B"');
  });

  it("rebuilds a page when the revision changes with the count unchanged (an adopted edit)", () => {
    const store = countingStore(createMemoryStore());
    const pages = new PageCache(store);
    pages.page({ limit: 5 });
    store.text = '["edited"]';
    expect(pages.page({ limit: 5 }).toString()).toBe("[]");
    store.bumped++;
    expect(pages.page({ limit: 5 }).toString()).toBe('["edited"]');
  });
});

describe("store revisions", () => {
  it("change on every create and differ between stores", async () => {
    const one = createMemoryStore();
    const two = createMemoryStore();
    expect(one.revision).not.toBe(two.revision);
    const before = one.revision;
    await one.create({ name: "C", categoryId: 3n });
    expect(one.revision).not.toBe(before);
  });
});
