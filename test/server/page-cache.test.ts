import { describe, expect, it } from "vitest";
import { createPetList } from "../../src/server/pet-routes.js";
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

describe("the pages of GET /pets", () => {
  it("serves the same bytes for the same page while the store is unchanged", () => {
    const store = countingStore(createMemoryStore([{ id: 1n, name: "A", categoryId: 1n }]));
    const list = createPetList(store);
    const first = list("limit=5").body;
    expect(first.toString()).toBe('[{"id":1,"name":"A","categoryId":1}]');
    expect(list("limit=5").body).toBe(first);
    expect(store.lists).toBe(1);
    list("limit=6");
    list("limit=5&status=sold");
    expect(store.lists).toBe(3);
  });

  it("rebuilds a page after a create", async () => {
    const store = countingStore(createMemoryStore());
    const list = createPetList(store);
    expect(list("limit=5").body.toString()).toBe("[]");
    await store.create({ name: "B", categoryId: 2n });
    expect(list("limit=5").body.toString()).toContain('"name":"B"');
  });

  it("rebuilds a page when the revision changes with the count unchanged (an adopted edit)", () => {
    const store = countingStore(createMemoryStore());
    const list = createPetList(store);
    list("limit=5");
    store.text = '["edited"]';
    expect(list("limit=5").body.toString()).toBe("[]");
    store.bumped++;
    expect(list("limit=5").body.toString()).toBe('["edited"]');
  });

  it("answers an invalid query 400, and forgets the oldest query past 256", () => {
    const store = countingStore(createMemoryStore());
    const list = createPetList(store);
    expect(list("limit=0").status).toBe(400);
    for (let limit = 1; limit <= 100; limit++) list(`limit=${limit}&status=sold`);
    for (let limit = 1; limit <= 100; limit++) list(`status=sold&limit=${limit}`);
    for (let limit = 1; limit <= 100; limit++) list(`limit=${limit}`);
    const lists = store.lists;
    list("limit=100");
    expect(store.lists).toBe(lists);
    list("limit=1&status=sold");
    expect(store.lists).toBe(lists + 1);
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
