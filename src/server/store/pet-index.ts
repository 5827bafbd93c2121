/**
 * The in-memory state shared by the memory twin and the file store: pets sorted by
 * id, each with its canonical JSON, plus one id-sorted array per status. A list is
 * a join of the first `limit` ready strings of one array; a get is a binary search.
 * No Map: at a million pets a sorted array is smaller, loads faster and looks up
 * faster than a Map keyed by bigint.
 */
import {
  DEFAULT_PET_STATUS,
  INT64_MAX,
  petToJson,
  type NewPet,
  type Pet,
  type PetStatus,
} from "../../schema/pet.js";
import { formatProblems, validateNewPet } from "../../schema/validate.js";
import { StoreError, type ListOptions } from "./types.js";

export interface StoredPet {
  readonly id: bigint;
  readonly status: PetStatus | undefined;
  /** Canonical JSON (`petToJson`). */
  readonly json: string;
}

export function toStoredPet(pet: Pet): StoredPet {
  return { id: pet.id, status: pet.status, json: petToJson(pet) };
}

/**
 * Why a create must be refused even though the caller validated it: a pet the file
 * could not be read back with would stop the next start.
 */
export function newPetProblem(newPet: NewPet): StoreError | undefined {
  const checked = validateNewPet(newPet);
  if (checked.ok) return undefined;
  return new StoreError("invalid", `The pet is not valid: ${formatProblems(checked.problems)}.`);
}

/** The pet a create stores: the given fields, the assigned id, status defaulted. */
export function petFromNew(newPet: NewPet, id: bigint): Pet {
  return {
    id,
    name: newPet.name,
    categoryId: newPet.categoryId,
    status: newPet.status ?? DEFAULT_PET_STATUS,
  };
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

type StatusArrays = Record<PetStatus, StoredPet[]>;

/** Shared by every index, so a revision is never seen twice even when a store swaps indexes. */
let lastRevision = 0;

export class PetIndex {
  private readonly byStatus: StatusArrays;
  private currentRevision = ++lastRevision;

  /** `pets` must be sorted by id with no id twice (see `sortPets`). */
  constructor(private readonly all: StoredPet[] = []) {
    this.byStatus = { available: [], pending: [], sold: [] };
    for (const pet of all) {
      if (pet.status !== undefined) this.byStatus[pet.status].push(pet);
    }
  }

  get size(): number {
    return this.all.length;
  }

  /** Changes whenever the pets change, including when a store replaces its index. */
  get revision(): number {
    return this.currentRevision;
  }

  /** Pets by id ascending; do not modify. */
  get pets(): readonly StoredPet[] {
    return this.all;
  }

  get maxId(): bigint | undefined {
    return this.all[this.all.length - 1]?.id;
  }

  list(options: ListOptions): string {
    const source = options.status === undefined ? this.all : this.byStatus[options.status];
    const count = Math.min(options.limit, source.length);
    if (count === 0) return "[]";
    let json = "[" + source[0]!.json;
    for (let i = 1; i < count; i++) json += "," + source[i]!.json;
    return json + "]";
  }

  get(id: bigint): string | undefined {
    const all = this.all;
    let low = 0;
    let high = all.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const pet = all[middle]!;
      if (pet.id < id) low = middle + 1;
      else if (pet.id > id) high = middle - 1;
      else return pet.json;
    }
    return undefined;
  }

  /** Adds a pet whose id is above every stored id (what a create assigns). */
  append(pet: StoredPet): void {
    const max = this.maxId;
    if (max !== undefined && pet.id <= max) {
      throw new Error(`PetIndex.append: id ${pet.id} is not above ${max}`);
    }
    this.all.push(pet);
    if (pet.status !== undefined) this.byStatus[pet.status].push(pet);
    this.currentRevision = ++lastRevision;
  }
}

/**
 * Sorts by id in place (skipped when already sorted, the usual case) and returns
 * the first pair of positions, in the given order, that share an id, if any.
 */
export function sortPets(pets: StoredPet[]): { first: number; second: number } | undefined {
  let sorted = true;
  for (let i = 1; i < pets.length; i++) {
    if (pets[i - 1]!.id >= pets[i]!.id) {
      sorted = false;
      break;
    }
  }
  if (sorted) return undefined;
  const order = pets.map((_, i) => i);
  order.sort((a, b) => {
    const x = pets[a]!.id;
    const y = pets[b]!.id;
    return x < y ? -1 : x > y ? 1 : a - b;
  });
  for (let i = 1; i < order.length; i++) {
    if (pets[order[i - 1]!]!.id === pets[order[i]!]!.id) {
      return { first: order[i - 1]!, second: order[i]! };
    }
  }
  const copy = order.map((i) => pets[i]!);
  for (let i = 0; i < copy.length; i++) pets[i] = copy[i]!;
  return undefined;
}
