/**
 * The merge of the JSON file with the pets served, for an edit made by someone else
 * while serving and for the file read at start-up (an edit of the write-ahead log's
 * pets). The file was written from a copy read at a time the store cannot know, so a
 * pet it lacks may have been deleted on purpose, or may have reached the file after
 * the copy was read. Ids are given in increasing order and never twice, so a copy
 * that holds a pet of the file knew every pet with a smaller id: the edit deletes the
 * pets it lacks up to the largest id it holds from the file (`known`), and keeps the
 * newer ones. Pets acknowledged but not in the file yet (`logged`) were in no copy:
 * always kept. docs/design.md says why this rule, and what it cannot tell apart.
 */
import { petToJson } from "../../schema/pet.js";
import type { PetFile } from "./pet-file.js";
import { findPet, idAfter, maxId, sortPets, type StoredPet } from "./memory.js";

/**
 * Merges the pets of the file `name` (`parsed`; those without an id get the next ids
 * above `ids`, the largest id used, and above its own) into `served`, of which `logged`
 * (sorted by id) are not in the file; or why not, when the file gives the id of a pet
 * in the log to another pet. Merged: the `pets` to serve (the file's, with those kept),
 * the kept pets the file lacks (`logged`, by id: they belong in the write-ahead log),
 * for the log the ids given to pets of the file that had none (`gave`: the file needs
 * writing) and what the merge did (`said`).
 */
export function mergeEdit(
  served: readonly StoredPet[],
  logged: readonly StoredPet[],
  parsed: PetFile,
  ids: bigint | undefined,
  name: string,
) {
  let max = maxId(ids, parsed.pets[parsed.pets.length - 1]?.id);
  const numbered: StoredPet[] = [];
  for (const pet of parsed.unnumbered) {
    max = idAfter(max);
    numbered.push({ ...pet, id: max });
  }
  const edited = numbered.length > 0 ? parsed.pets.concat(numbered) : parsed.pets;
  const clash = logged.find((pet) => petToJson(findPet(edited, pet.id) ?? pet) !== petToJson(pet));
  if (clash !== undefined) {
    return (
      `it holds ${petToJson(findPet(edited, clash.id)!)} where the pet ${petToJson(clash)} was ` +
      "acknowledged with the same id and is not in the file yet. Give the edited pet another id."
    );
  }
  // None when every pet served is logged (at start-up): no need to look through the file.
  const known =
    served.length > logged.length
      ? edited.findLast(({ id }) => !findPet(logged, id) && findPet(served, id))?.id
      : undefined;
  const missing = served.filter((pet) => !findPet(edited, pet.id));
  const kept = missing.filter(({ id }) => findPet(logged, id) || known === undefined || id > known);
  const newer = kept.filter((pet) => !findPet(logged, pet.id)).map((pet) => pet.id);
  const deleted = missing.length - kept.length;
  let said = deleted > 0 ? `; it deleted ${deleted}.` : ".";
  if (newer.length > 0) {
    const shown = newer.length <= 5 ? newer.join(", ") : `${newer.slice(0, 5).join(", ")}...`;
    said +=
      ` Kept ${newer.length === 1 ? "pet" : "pets"} ${shown}, newer than every pet the edit ` +
      "holds from the file: the edit may come from a copy read before they were added. To " +
      "delete them, stop serve, edit the file and start it again.";
  }
  const [first, last] = [numbered[0]?.id, numbered[numbered.length - 1]?.id];
  const gave =
    numbered.length === 0
      ? undefined
      : numbered.length === 1
        ? `Gave 1 pet without an id in ${name} the id ${first}, and wrote it into the file.`
        : `Gave ${numbered.length} pets without an id in ${name} the ids ${first} to ${last}, ` +
          "and wrote them into the file.";
  const pets = kept.length > 0 ? edited.concat(kept) : edited;
  if (kept.length > 0) sortPets(pets);
  return { pets, logged: kept, gave, said };
}
