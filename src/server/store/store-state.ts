/**
 * What the parts of the file store share: the names of its files, the pets it
 * serves with the version of the JSON file they match, and how acknowledged pets
 * join the pets of a file that lacks them (at start-up and when adopting an edit).
 */
import path from "node:path";
import type { FileVersion } from "./file-versions.js";
import { sortPets, type PetIndex, type StoredPet } from "./pet-index.js";

export interface StorePaths {
  /** The JSON file, symlinks resolved. */
  file: string;
  /** How messages call the file: as the person gave it. */
  name: string;
  directory: string;
  journal: string;
}

export function storePaths(file: string, name: string): StorePaths {
  return { file, name, directory: path.dirname(file), journal: `${file}.journal` };
}

/** The store's state; each module says which parts it changes. */
export interface StoreState {
  /** The pets served. */
  index: PetIndex;
  /** The JSON file as this store last wrote or adopted it. */
  version: FileVersion;
  /** Acknowledged (in the journal) but not yet in the JSON file; in id order. */
  unflushed: StoredPet[];
}

/** A pet the file holds (`there`, its JSON) under the id of an acknowledged pet. */
interface IdConflict {
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

/** `pets` with `missing` added, sorted by id (`pets` itself when nothing is missing). */
export function withPets(pets: StoredPet[], missing: readonly StoredPet[]): StoredPet[] {
  if (missing.length === 0) return pets;
  const all = pets.concat(missing);
  sortPets(all);
  return all;
}
