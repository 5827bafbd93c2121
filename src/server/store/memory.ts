/**
 * Pets in memory, and the memory store: the memory twin of the file store (for tests
 * of the HTTP layer and `serve` without a file) and what the file store builds on, with
 * the same ids, order, filters and errors. Pets are kept sorted by id: a list formats
 * the first `limit` pets (of the status asked for: found by a scan that stops there,
 * since pages are cached per revision, page-cache.ts), a get is a binary search. No Map: at a million pets a sorted array is smaller, loads
 * faster and looks up faster than a Map keyed by id. An id is never given out twice: a
 * reset does not rewind them.
 */
import { ERROR_KIND, KindedError } from "../../schema/kinded-error.js";
import {
  DEFAULT_PET_STATUS,
  INT64_MAX,
  petToJson,
  type NewPet,
  type Pet,
  type PetStatus,
} from "../../schema/pet.js";
import { formatProblems, validateNewPet } from "../../schema/validate.js";

export type StoreErrorCode =
  /** Another process serves the same file. */
  | "locked"
  /**
   * The file is not valid JSON (the message names line and column), or not an array of
   * valid pets (the message names the pet and field); for a create, the body is not a
   * valid NewPet (message: its problems, as a client is told).
   */
  | "invalid"
  /** No id is left above the largest id used (int64 exhausted). */
  | "id_space_exhausted"
  /**
   * A create's write-ahead log write failed (a full disk, a quota, an I/O error) and was
   * undone, or the store no longer takes writes: the pet is certainly not stored.
   */
  | "not_stored"
  /** The disk refused a write or a read. */
  | "io";

export class StoreError extends KindedError {
  static override [ERROR_KIND] = "StoreError";
  constructor(
    readonly code: StoreErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The pet store as the HTTP layer sees it (no HTTP here, no files here): the public
 * members of the memory store, of the file store that extends it, or of a test's stand-in.
 */
export type PetStore = Pick<MemoryStore, keyof MemoryStore>;

export interface CreatedPet {
  pet: Pet;
  /** Canonical JSON of `pet`. */
  json: string;
}

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

/** The pet a create stores when `max` is the largest id used: the given fields, the next id, status defaulted. */
export function petFromNew(newPet: NewPet, max: bigint | undefined): Pet {
  const { name, categoryId, status = DEFAULT_PET_STATUS } = newPet;
  return { id: idAfter(max), name, categoryId, status };
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
 * Sorts by id in place, stably (skipped when already sorted, the usual case); returns
 * the first two pets, in the given order, that share an id.
 */
export function sortPets<P extends StoredPet>(pets: P[]): [P, P] | undefined {
  let sorted = true;
  for (let i = 1; i < pets.length && sorted; i++) sorted = pets[i - 1]!.id < pets[i]!.id;
  if (sorted) return undefined;
  pets.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (let i = 1; i < pets.length; i++) {
    if (!(pets[i - 1]!.id < pets[i]!.id)) return [pets[i - 1]!, pets[i]!];
  }
  return undefined;
}

/** Shared by every store, so that no two stores (or states of one) have the same revision. */
let lastRevision = 0;

export class MemoryStore {
  /** Sorted by id, no id twice. */
  protected pets: StoredPet[] = [];
  /** A number that changes whenever the stored pets change (creates, adopted edits, resets). */
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

  /** Number of pets stored. */
  get size(): number {
    return this.pets.length;
  }

  /**
   * JSON array text of up to `limit` pets (1..100, already validated), by id ascending,
   * filtered by status when given.
   */
  listJson({ limit, status }: { limit: number; status?: PetStatus }): string {
    const page: string[] = [];
    for (let i = 0; i < this.pets.length && page.length < limit; i++) {
      const pet = this.pets[i]!;
      if (status === undefined || pet.status === status) page.push(petToJson(pet));
    }
    return `[${page.join(",")}]`;
  }

  /** Canonical JSON of the pet with this id, or undefined. */
  getJson(id: bigint): string | undefined {
    const pet = findPet(this.pets, id);
    return pet && (pet.json ??= petToJson(pet));
  }

  /**
   * Validates `body` (a parsed request body) as a NewPet, the one place a new pet is
   * validated (its problems are the client's message); assigns the next id (one above
   * the largest id ever used: stored, or given to a pet since deleted or reset away; at
   * least 1), stores the pet with `status` defaulted to DEFAULT_PET_STATUS, and resolves
   * only once the pet is durable. Rejects with a StoreError when it cannot.
   */
  async create(body: unknown): Promise<CreatedPet> {
    const checked = validateNewPet(body);
    if (!checked.ok) throw new StoreError("invalid", formatProblems(checked.problems));
    this.refuseIfClosed();
    return this.add(checked.value);
  }

  /** Stores a valid pet under the next id. */
  protected async add(newPet: NewPet): Promise<CreatedPet> {
    const pet = petFromNew(newPet, this.idsUsedUpTo);
    this.pets.push(pet);
    this.serve(this.pets);
    return { pet, json: petToJson(pet) };
  }

  /**
   * Replaces every pet by the pets the store held when it was opened, and resolves
   * only once that is durable (a restart after it serves those pets). Creates
   * acknowledged before it are gone after it; their ids are not given out again.
   * Rejects with a StoreError when it cannot; the pets served are then unchanged.
   */
  async reset(): Promise<void> {
    this.refuseIfClosed();
    this.serve(this.opening.slice());
  }

  /** Finish pending writes, bring the JSON file exactly up to date, release the file. */
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
}

export function createMemoryStore(pets: Pet[] = []): PetStore {
  const sorted = pets.map((pet): StoredPet => ({ ...pet }));
  const duplicate = sortPets(sorted);
  if (duplicate) {
    throw new StoreError(
      "invalid",
      `Two pets share the id ${duplicate[0].id}; each pet needs its own id.`,
    );
  }
  return new MemoryStore(sorted);
}
