/**
 * How an edit of the file joins the pets served. The edit was made from a copy
 * of the file, read at a time the store cannot know: a pet it lacks may have been
 * deleted on purpose, or may have reached the file after the copy was read. Ids
 * are given in increasing order and never twice, so a copy that holds a pet of
 * the file knew every pet with a smaller id: the edit deletes the pets it lacks
 * up to the largest id it holds from the file (`known`), and keeps the newer ones.
 * Pets acknowledged but not in the file yet (`unflushed`) were in no copy: always
 * kept. docs/design.md says why this rule, and what it cannot tell apart.
 */
import { PetIndex, type StoredPet } from "./pet-index.js";
import { withPets, type IdConflict } from "./store-state.js";

export interface Merged {
  /** The pets to serve: the edit's, with those kept. */
  index: PetIndex;
  /** The pets served that the edit lacks and that are kept, by id: they go into the write-ahead log. */
  unflushed: StoredPet[];
  /** Of `unflushed`: those that had reached the file (newer than every pet the edit holds from it). */
  newer: StoredPet[];
  /** How many pets the edit deleted. */
  deleted: number;
}

/**
 * Merges `edited` (the edit's pets, ids given) into `served`, of which
 * `unflushed` (sorted by id) are not in the file.
 */
export function mergeEdit(
  served: PetIndex,
  unflushed: readonly StoredPet[],
  edited: PetIndex,
): Merged | { conflict: IdConflict } {
  const pending = new Set<bigint>();
  for (const pet of unflushed) {
    const there = edited.get(pet.id);
    if (there !== undefined && there !== pet.json) return { conflict: { there, pet } };
    pending.add(pet.id);
  }
  let known: bigint | undefined;
  for (const pet of edited.pets) {
    if (!pending.has(pet.id) && served.get(pet.id) !== undefined) known = pet.id;
  }
  const kept: StoredPet[] = [];
  const newer: StoredPet[] = [];
  let deleted = 0;
  for (const pet of served.pets) {
    if (edited.get(pet.id) !== undefined) continue;
    if (pending.has(pet.id)) {
      kept.push(pet);
    } else if (known === undefined || pet.id > known) {
      kept.push(pet);
      newer.push(pet);
    } else {
      deleted++;
    }
  }
  return {
    index: new PetIndex(withPets(edited.pets.slice(), kept)),
    unflushed: kept,
    newer,
    deleted,
  };
}
