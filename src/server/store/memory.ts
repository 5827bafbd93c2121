/**
 * The memory twin of the file store: the same ids, order, filters and errors, no
 * durability. For tests of the HTTP layer and for `serve` without a file. As in
 * the file store, an id is never given out twice: a reset does not rewind them.
 */
import { petToJson, type Pet } from "../../schema/pet.js";
import { PetIndex, checkNewPet, idAfter, petFromNew, sortPets } from "./pets.js";
import { StoreError, type PetStore } from "./types.js";

export function createMemoryStore(pets: Pet[] = []): PetStore {
  const opening = pets.slice();
  const duplicate = sortPets(opening);
  if (duplicate) {
    throw new StoreError(
      "invalid",
      `Pets at index ${duplicate[0]} and ${duplicate[1]} share the id ${pets[duplicate[0]]!.id}; each pet needs its own id.`,
    );
  }
  // A create appends to an index's array: each index gets its own copy.
  let index = new PetIndex(opening.slice());
  let usedUpTo = index.maxId;
  let closed = false;
  const refuseClosed = () => {
    if (closed) throw new StoreError("io", "The pet store is closed.");
  };
  return {
    listJson: (options) => index.list(options),
    getJson: (id) => {
      const pet = index.get(id);
      return pet && petToJson(pet);
    },
    async create(body) {
      const newPet = checkNewPet(body);
      refuseClosed();
      const pet = petFromNew(newPet, idAfter(usedUpTo));
      index.append(pet);
      usedUpTo = pet.id;
      return { pet, json: petToJson(pet) };
    },
    get size() {
      return index.size;
    },
    get revision() {
      return index.revision;
    },
    async reset() {
      refuseClosed();
      index = new PetIndex(opening.slice());
    },
    async close() {
      closed = true;
    },
  };
}
