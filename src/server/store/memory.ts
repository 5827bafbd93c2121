/**
 * The memory twin of the file store: the same ids, order, filters and errors, no
 * durability. For tests of the HTTP layer and for `serve` without a file. As in
 * the file store, an id is never given out twice: a reset does not rewind them.
 */
import type { Pet } from "../../schema/pet.js";
import {
  PetIndex,
  idAfter,
  newPetProblem,
  petFromNew,
  sortPets,
  toStoredPet,
} from "./pet-index.js";
import { StoreError, type PetStore } from "./types.js";

export function createMemoryStore(pets: Pet[] = []): PetStore {
  const stored = pets.map(toStoredPet);
  const duplicate = sortPets(stored);
  if (duplicate) {
    throw new StoreError(
      "invalid",
      `Pets at index ${duplicate.first} and ${duplicate.second} share the id ${stored[duplicate.first]!.id}; each pet needs its own id.`,
    );
  }
  // A create appends to an index's array: each index gets its own copy.
  let index = new PetIndex(stored.slice());
  /** The largest id used. */
  let usedUpTo = index.maxId;
  let closed = false;
  return {
    listJson: (options) => index.list(options),
    getJson: (id) => index.get(id),
    async create(newPet) {
      const problem = newPetProblem(newPet);
      if (problem) throw problem;
      if (closed) throw new StoreError("io", "The pet store is closed.");
      const pet = petFromNew(newPet, idAfter(usedUpTo));
      const entry = toStoredPet(pet);
      index.append(entry);
      usedUpTo = pet.id;
      return { pet, json: entry.json };
    },
    get size() {
      return index.size;
    },
    get revision() {
      return index.revision;
    },
    async reset() {
      if (closed) throw new StoreError("io", "The pet store is closed.");
      index = new PetIndex(stored.slice());
    },
    async close() {
      closed = true;
    },
  };
}
