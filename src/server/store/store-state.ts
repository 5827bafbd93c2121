/**
 * What the parts of the file store share: the names of its files, the pets it
 * serves with the version of the JSON file they match, the largest id it ever
 * used, and how acknowledged pets join the pets of a file that lacks them (at
 * start-up and when adopting an edit).
 */
import path from "node:path";
import type { UnnumberedPet } from "./file-format.js";
import type { FileVersion } from "./file-versions.js";
import { idAfter, sortPets, toStoredPet, type PetIndex, type StoredPet } from "./pet-index.js";

export interface StorePaths {
  /** The JSON file, symlinks resolved. */
  file: string;
  /** How messages call the file: as the person gave it. */
  name: string;
  directory: string;
  /** The write-ahead log: `<file>.journal`, the name stores have always had on disk. */
  wal: string;
}

export function storePaths(file: string, name: string): StorePaths {
  return { file, name, directory: path.dirname(file), wal: `${file}.journal` };
}

/** The store's state; each module says which parts it changes. */
export interface StoreState {
  /** The pets served. */
  index: PetIndex;
  /** The JSON file as this store last wrote or adopted it. */
  version: FileVersion;
  /** Acknowledged (in the write-ahead log) but not yet in the JSON file; in id order. */
  unflushed: StoredPet[];
  /** The JSON file lacks ids the store gave its pets: the next compaction writes it whole. */
  rewrite: boolean;
  /**
   * The largest id ever given to a created pet or held by a pet served (at least
   * the largest id served): new ids go above it, so none is given out twice. Kept
   * durable as the write-ahead log's first line (`idsMarkLine`).
   */
  idsUsedUpTo: bigint | undefined;
}

/** The larger of two ids, either of which may be missing. */
export function maxId(a: bigint | undefined, b: bigint | undefined): bigint | undefined {
  return a === undefined || (b !== undefined && b > a) ? b : a;
}

/** A pet the file holds (`there`, its JSON) under the id of an acknowledged pet. */
/** A pet the file holds (`there`, its JSON) under the id of an acknowledged pet that is not it. */
export interface IdConflict {
  there: string;
  pet: StoredPet;
}

/**
 * The `acknowledged` pets that `file` lacks, or the first one whose id the file (or
 * an acknowledged pet before it) holds as another pet.
 */
export function lackedPets(
  file: PetIndex,
  acknowledged: readonly StoredPet[],
): { missing: StoredPet[] } | { conflict: IdConflict } {
  const missing: StoredPet[] = [];
  const seen = new Map<bigint, string>();
  for (const pet of acknowledged) {
    const there = file.get(pet.id) ?? seen.get(pet.id);
    if (there === pet.json) continue;
    if (there !== undefined) return { conflict: { there, pet } };
    seen.set(pet.id, pet.json);
    missing.push(pet);
  }
  return { missing };
}

/**
 * The `unnumbered` pets of a file with the next ids above `above` (the ids used)
 * and above the file's own `pets` (sorted), in file order; throws
 * `id_space_exhausted` when int64 runs out.
 */
export function numberPets(
  pets: readonly StoredPet[],
  unnumbered: readonly UnnumberedPet[],
  above: bigint | undefined,
): StoredPet[] {
  let max = maxId(above, pets[pets.length - 1]?.id);
  return unnumbered.map((pet) => {
    const id = idAfter(max);
    max = id;
    return toStoredPet({ id, ...pet });
  });
}

/** For the log: what `numberPets` gave `numbered` pets of `name`. */
export function describeNumbered(numbered: readonly StoredPet[], name: string): string {
  const first = numbered[0]!.id;
  const last = numbered[numbered.length - 1]!.id;
  return numbered.length === 1
    ? `Gave 1 pet without an id in ${name} the id ${first}, and wrote it into the file.`
    : `Gave ${numbered.length} pets without an id in ${name} the ids ${first} to ${last}, ` +
        "and wrote them into the file.";
}

/** `pets` with `missing` added, sorted by id (`pets` itself when nothing is missing). */
export function withPets(pets: StoredPet[], missing: readonly StoredPet[]): StoredPet[] {
  if (missing.length === 0) return pets;
  const all = pets.concat(missing);
  sortPets(all);
  return all;
}
