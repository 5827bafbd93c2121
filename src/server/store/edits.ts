/**
 * Edits of the JSON file by someone else while serving. A change of the file's own
 * stat (inode, size, mtime) is an edit in progress; it is looked at only once the
 * stat has stayed the same from one check to the next (a writer that truncates and
 * then writes in chunks, as `cat new.json > pets.json` and editors saving in place
 * do, is still writing). Until then, and while the file is empty (0 bytes: a write
 * that has only begun), invalid, or no longer a regular file, the store keeps
 * serving what it had and never writes the file: what a writer put there is never
 * written over. A valid, settled edit is merged (`mergeEdit`).
 *
 * The merge: the edit was made from a copy of the file, read at a time the store
 * cannot know, so a pet it lacks may have been deleted on purpose, or may have
 * reached the file after the copy was read. Ids are given in increasing order and
 * never twice, so a copy that holds a pet of the file knew every pet with a smaller
 * id: the edit deletes the pets it lacks up to the largest id it holds from the file
 * (`known`), and keeps the newer ones. Pets acknowledged but not in the file yet
 * (`unflushed`) were in no copy: always kept. docs/design.md says why this rule, and
 * what it cannot tell apart.
 */
import type { BigIntStats } from "node:fs";
import { lstatIfThereAsync } from "../../files/file-safety.js";
import { petToJson } from "../../schema/pet.js";
import { dataFileProblem, readText } from "./file-kinds.js";
import { parsePetFile, type PetFile } from "./pet-file.js";
import { PetIndex, idAfter, maxId, sortPets, type StoredPet } from "./memory.js";
import { StoreError } from "./types.js";

/** What tells one version of the file from another. */
export function statKey(stat: BigIntStats | undefined): string {
  return stat === undefined ? "missing" : `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
}

/** A settled, valid edit, as read. */
export interface Edit {
  stat: BigIntStats;
  parsed: PetFile;
}

export class EditWatcher {
  /** The version of the file that was refused: not looked at (nor written) until it changes. */
  private refusedKey: string | undefined;
  /** The version seen at the last check, when it was not the store's: still settling. */
  private settling: string | undefined;

  constructor(
    private readonly file: string,
    private readonly name: string,
    private readonly walName: string,
    private readonly say: (line: string) => void,
  ) {}

  /**
   * The file against `known`, the version the store last wrote or took: the `same`,
   * `deleted`, a settled valid edit, or `wait` (still settling, or refused: not the
   * store's to write). `served`: how many pets are served, for messages. `last`: the
   * check before closing, which takes a whole, valid edit without waiting for it to settle.
   */
  async check(
    known: string,
    served: number,
    last: boolean,
  ): Promise<"same" | "deleted" | "wait" | Edit> {
    const current = await lstatIfThereAsync(this.file);
    const key = statKey(current);
    if (key === known || (!last && key !== this.settling) || key === this.refusedKey) {
      this.settling = key === known ? undefined : key;
      return key === known ? "same" : "wait";
    }
    if (current === undefined) {
      this.say(`${this.name} was deleted; writing it again with the ${served} pets served.`);
      return "deleted";
    }
    if (current.isFile() && current.size === 0n) {
      const why =
        "it is empty: a file being written starts so, and an empty file is never taken as an edit.";
      return this.refuse(key, why, served);
    }
    try {
      const read = await readText(this.file, dataFileProblem(this.name));
      // Changed again meanwhile, or while being read: still being written.
      if (read === undefined || statKey(read.stat) !== key) return "wait";
      if (statKey(await lstatIfThereAsync(this.file)) !== key) return "wait";
      return { stat: read.stat, parsed: parsePetFile(read.text, this.name) };
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      const unsafe = error.code === "unsafe_file";
      return this.refuse(
        key,
        unsafe ? error.message : `the edit cannot be used: ${error.message}`,
        served,
      );
    }
  }

  /**
   * Refuses the version `key` of the file because of `why`, saying so once: it is not
   * looked at, nor written, until it changes.
   */
  refuse(key: string, why: string, served: number): "wait" {
    this.refusedKey = key;
    this.say(
      `${this.name} was edited, but ${why} Still serving the ${served} pets from before; ` +
        `${this.name} will not be written until it changes, and acknowledged pets stay safe ` +
        `in ${this.walName}.`,
    );
    return "wait";
  }
}

export interface Merged {
  /** The pets to serve: the file's, with those kept. */
  index: PetIndex;
  /** The pets served that the file lacks and that are kept, by id: they go into the log. */
  unflushed: StoredPet[];
  /** Some of them had reached the file (are newer than every pet the edit holds from it). */
  newer: boolean;
  /** The pets the file held without an id: they need a new file. */
  numbered: number;
  /** The largest id used, the file's counted. */
  idsUsedUpTo: bigint | undefined;
  /** What was done, for the log: the ids given, and what the merge did. */
  gave: string | undefined;
  said: string;
}

/**
 * Merges the pets of the file `name` (`parsed`, those without an id given the next ids above
 * `ids`, the ids used, and above its own) into `served`, of which `unflushed` (sorted
 * by id) are not in the file; or why not, when the file gives the id of an
 * acknowledged pet to another pet or no id is left.
 */
export function mergeEdit(
  served: PetIndex,
  unflushed: StoredPet[],
  parsed: PetFile,
  ids: bigint | undefined,
  name: string,
): Merged | string {
  let max = maxId(ids, parsed.pets[parsed.pets.length - 1]?.id);
  const numbered: StoredPet[] = [];
  try {
    for (const pet of parsed.unnumbered) {
      const id = idAfter(max);
      max = id;
      numbered.push({ id, ...pet });
    }
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    return `the edit cannot be used: ${error.message}`;
  }
  const edited = new PetIndex(numbered.length > 0 ? parsed.pets.concat(numbered) : parsed.pets);
  const pending = new PetIndex(unflushed);
  for (const pet of unflushed) {
    const there = edited.get(pet.id);
    if (there !== undefined && petToJson(there) !== petToJson(pet)) {
      return (
        `it holds ${petToJson(there)} where the pet ${petToJson(pet)} was acknowledged with ` +
        "the same id and is not in the file yet. Give the edited pet another id."
      );
    }
  }
  let known: bigint | number | undefined;
  for (let i = edited.size - 1; i >= 0 && served.size > unflushed.length; i--) {
    const { id } = edited.pets[i]!;
    if (!pending.get(id) && served.get(id)) {
      known = id;
      break;
    }
  }
  const kept: StoredPet[] = [];
  const newer: Array<bigint | number> = [];
  let deleted = 0;
  for (const pet of served.pets) {
    if (edited.get(pet.id)) continue;
    const isPending = pending.get(pet.id) !== undefined;
    if (!isPending && known !== undefined && pet.id <= known) {
      deleted++;
      continue;
    }
    kept.push(pet);
    if (!isPending) newer.push(pet.id);
  }
  const [first, last] = [numbered[0]?.id, numbered[numbered.length - 1]?.id];
  const gave =
    numbered.length === 0
      ? undefined
      : numbered.length === 1
        ? `Gave 1 pet without an id in ${name} the id ${first}, and wrote it into the file.`
        : `Gave ${numbered.length} pets without an id in ${name} the ids ${first} to ${last}, ` +
          "and wrote them into the file.";
  let said = deleted > 0 ? `; it deleted ${deleted}` : "";
  if (kept.length > 0) said += `; kept ${kept.length} pets it lacks, which are added to it`;
  said += ".";
  if (newer.length > 0) {
    const shown = newer.length <= 5 ? newer.join(", ") : `${newer.slice(0, 5).join(", ")}...`;
    said +=
      ` Kept ${newer.length === 1 ? "pet" : "pets"} ${shown}, newer than every pet the edit ` +
      "holds from the file: the edit may come from a copy read before they were added. To " +
      "delete them, stop serve, edit the file and start it again.";
  }
  const all = kept.length > 0 ? edited.pets.concat(kept) : edited.pets;
  if (kept.length > 0) sortPets(all);
  const idsUsedUpTo = maxId(ids, edited.maxId);
  return {
    index: new PetIndex(all),
    unflushed: kept,
    newer: newer.length > 0,
    numbered: numbered.length,
    idsUsedUpTo,
    gave,
    said,
  };
}
