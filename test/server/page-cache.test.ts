import { describe, expect, it } from "vitest";
import { PageCache } from "../../src/server/page-cache.js";
import { createMemoryStore } from "../../src/server/store/memory.js";
import type { PetStore } from "../../src/server/store/types.js";

function countingStore(pets: PetStore): PetStore & { lists: number; text: string | undefined } {
  const store = {
    lists: 0,
    text: undefined as string | undefined,
    listJson: (options: Parameters<PetStore["listJson"]>[0]) => {
      store.lists++;
      return store.text ?? pets.listJson(options);
    },
    getJson: (id: bigint) => pets.getJson(id),
    create: (pet: Parameters<PetStore["create"]>[0]) => pets.create(pet),
    get size() {
      return pets.size;
    },
    close: () => pets.close(),
  };
  return store;
}

describe("the page cache", () => {
  it("serves the same bytes for the same page while the store is unchanged", () => {
    const store = countingStore(createMemoryStore([{ id: 1n, name: "A", categoryId: 1n }]));
    const pages = new PageCache(store, 60_000);
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
    const pages = new PageCache(store, 60_000);
    expect(pages.page({ limit: 5 }).toString()).toBe("[]");
    await store.create({ name: "B", categoryId: 2n });
    expect(pages.page({ limit: 5 }).toString()).toContain('"name":"B"');
  });

  it("rebuilds a page after invalidate, even when the count is the same", () => {
    const store = countingStore(createMemoryStore());
    const pages = new PageCache(store, 60_000);
    pages.page({ limit: 5 });
    store.text = '["edited"]';
    expect(pages.page({ limit: 5 }).toString()).toBe("[]");
    pages.invalidate();
    expect(pages.page({ limit: 5 }).toString()).toBe('["edited"]');
  });

  it("keeps no page longer than its maximum age", () => {
    const store = countingStore(createMemoryStore());
    const pages = new PageCache(store, 0);
    pages.page({ limit: 5 });
    store.text = '["edited"]';
    expect(pages.page({ limit: 5 }).toString()).toBe('["edited"]');
  });
});
