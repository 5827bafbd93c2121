import { describe, expect, it } from "vitest";
import { createMemoryStore, StoreError } from "../../../src/server/store/memory.js";
import { describeStoreContract } from "./store-contract.js";

describeStoreContract("memory store", async (pets) => createMemoryStore(pets));

describe("memory store", () => {
  it("refuses two pets with the same id", () => {
    const pets = [
      { id: 1n, name: "A", categoryId: 1n },
      { id: 1n, name: "B", categoryId: 1n },
    ];
    expect(() => createMemoryStore(pets)).toThrow(StoreError);
  });

  it("refuses creates after close", async () => {
    const store = createMemoryStore();
    await store.close();
    await expect(store.create({ name: "A", categoryId: 1n })).rejects.toThrow(/closed/);
  });
});
