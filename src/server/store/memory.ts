/**
 * Pets in memory, and the memory store: the memory twin of the file store (for tests
 * of the HTTP layer and `serve` without a file) and what the file store builds on, with
 * the same ids, order, filters and errors. Pets are kept sorted by id: a list formats
 * the first `limit` pets (of the status asked for: found by a scan that stops there,
 * since pages are cached per revision, page-cache.ts), a get is a binary search. No Map: at a million pets a sorted array is smaller, loads
 * faster and looks up faster than a Map keyed by id. An id is never given out twice: a
 * reset does not rewind them.
 */
import {
  DEFAULT_PET_STATUS,
  INT64_MAX,
  petToJson,
  type NewPet,
  type Pet,
} from "../../schema/pet.js";
import { formatProblems, validateNewPet } from "../../schema/validate.js";
import { StoreError, type CreatedPet, type ListOptions, type PetStore } from "./types.js";

/**
 * A pet as the store keeps it. The integers of a file read by `JSON.parse` stay
 * numbers (all of them safe, see pet-file.ts), so a million pets load without a
 * BigInt each; those of the lossless parser and of created pets are bigints.
 * `<` and `>` compare the two exactly.
 */
export type StoredPet = Readonly<
  Omit<Pet, "id" | "categoryId"> & { id: bigint | number; categoryId: bigint | number }
> & {
  /** Its canonical JSON, kept once a read by id asked for it. */
  json?: string;
};

/** The pet a create stores: the given fields, the assigned id, status defaulted. */
export function petFromNew(newPet: NewPet, id: bigint): Pet {
  const { name, categoryId, status = DEFAULT_PET_STATUS } = newPet;
  return { id, name, categoryId, status };
}

/**
 * The id a create gets when `max` is the largest id used so far: max + 1, at
 * least 1. Ids are never given out twice, so running out is for good.
 */
export function idAfter(max: bigint | undefined): bigint {
  if (max === undefined || max < 1n) return 1n;
  if (max >= INT64_MAX) {
    throw new StoreError(
      "id_space_exhausted",
      `No id is left for a new pet: id ${max}, the int64 maximum, has been used, and an id ` +
        "is never given out twice.",
    );
  }
  return max + 1n;
}

/** The larger of two ids, either of which may be missing. */
export function maxId(a: bigint | undefined, b: bigint | number | undefined): bigint | undefined {
  return b !== undefined && (a === undefined || b > a) ? BigInt(b) : a;
}

/** The pet with `id` in `pets` (sorted by id), by binary search. */
export function findPet(pets: readonly StoredPet[], id: bigint | number): StoredPet | undefined {
  let [low, high] = [0, pets.length - 1];
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const pet = pets[middle]!;
    if (pet.id < id) low = middle + 1;
    else if (pet.id > id) high = middle - 1;
    else return pet;
  }
  return undefined;
}

/**
 * Sorts by id in place (skipped when already sorted, the usual case); returns the
 * first two positions, in the given order, that share an id, leaving `pets` unsorted.
 */
export function sortPets(pets: StoredPet[]): [number, number] | undefined {
  let sorted = true;
  for (let i = 1; i < pets.length && sorted; i++) sorted = pets[i - 1]!.id < pets[i]!.id;
  if (sorted) return undefined;
  const order = pets.map((_, i) => i);
  order.sort((a, b) => {
    const [x, y] = [pets[a]!.id, pets[b]!.id];
    return x < y ? -1 : x > y ? 1 : a - b;
  });
  for (let i = 1; i < order.length; i++) {
    if (!(pets[order[i - 1]!]!.id < pets[order[i]!]!.id)) return [order[i - 1]!, order[i]!];
  }
  const copy = order.map((i) => pets[i]!);
  copy.forEach((pet, i) => (pets[i] = pet));
  return undefined;
}

/** Shared by every store, so that no two stores (or states of one) have the same revision. */
let lastRevision = 0;

export class MemoryStore implements PetStore {
  /** Sorted by id, no id twice. */
  protected pets: StoredPet[] = [];
  revision = ++lastRevision;
  /** The pets served right after opening, for `reset`. */
  protected opening: readonly StoredPet[] = [];
  /** The largest id ever given or served: new ids go above it. */
  protected idsUsedUpTo: bigint | undefined;
  protected closed = false;

  /** `pets`: sorted by id, no id twice; the store's own from now on. */
  constructor(pets: StoredPet[] = []) {
    this.serve(pets);
    this.opening = pets.slice();
  }

  get size(): number {
    return this.pets.length;
  }

  listJson({ limit, status }: ListOptions): string {
    const page: string[] = [];
    for (let i = 0; i < this.pets.length && page.length < limit; i++) {
      const pet = this.pets[i]!;
      if (status === undefined || pet.status === status) page.push(petToJson(pet));
    }
    return `[${page.join(",")}]`;
  }

  getJson(id: bigint): string | undefined {
    const pet = findPet(this.pets, id);
    return pet && (pet.json ??= petToJson(pet));
  }

  /** The one validation of a new pet (a parsed request body): its problems are the client's message. */
  async create(body: unknown): Promise<CreatedPet> {
    const checked = validateNewPet(body);
    if (!checked.ok) throw new StoreError("invalid", formatProblems(checked.problems));
    this.refuseIfClosed();
    return this.add(checked.value);
  }

  /** Stores a valid pet under the next id. */
  protected async add(newPet: NewPet): Promise<CreatedPet> {
    const pet = petFromNew(newPet, idAfter(this.idsUsedUpTo));
    this.append(pet);
    return { pet, json: petToJson(pet) };
  }

  async reset(): Promise<void> {
    this.refuseIfClosed();
    this.serve(this.opening.slice());
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  protected refuseIfClosed(): void {
    if (this.closed) throw new StoreError("io", "The pet store is closed.");
  }

  /** Serves `pets` (sorted by id, no id twice), which become the store's own. */
  protected serve(pets: StoredPet[]): void {
    this.pets = pets;
    this.revision = ++lastRevision;
    this.idsUsedUpTo = maxId(this.idsUsedUpTo, pets[pets.length - 1]?.id);
  }

  /** Adds a pet whose id is above every id used (what a create assigns). */
  protected append(pet: StoredPet): void {
    this.pets.push(pet);
    this.revision = ++lastRevision;
    this.idsUsedUpTo = maxId(this.idsUsedUpTo, pet.id);
  }
}

export function createMemoryStore(pets: Pet[] = []): PetStore {
  const sorted = pets.map((pet): StoredPet => ({ ...pet }));
  const duplicate = sortPets(sorted);
  if (duplicate) {
    throw new StoreError(
      "invalid",
      `Pets at index ${duplicate[0]} and ${duplicate[1]} share the id ${pets[duplicate[0]]!.id}; each pet needs its own id.`,
    );
  }
  return new MemoryStore(sorted);
}
