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
import { PetIndex, idAfter, maxId, withPets, type StoredPet } from "./pets.js";
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
  /** The version of the file that was refused: it is not looked at (nor written) until it changes. */
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
   * The file compared with `known`, the version the store last wrote or took:
   * `same`; `deleted`; a settled, valid edit; or `wait` (still settling, or refused:
   * the file is not the store's to write). `served`: the number of pets served, for
   * messages. `last`: the check before closing, which takes a whole, valid edit
   * without waiting for it to settle.
   */
  async check(
    known: string,
    served: number,
    last: boolean,
  ): Promise<"same" | "deleted" | "wait" | Edit> {
    const current = await lstatIfThereAsync(this.file);
    const key = statKey(current);
    if (key === known) {
      this.settling = undefined;
      return "same";
    }
    if (!last && key !== this.settling) {
      this.settling = key;
      return "wait";
    }
    const { name, walName } = this;
    if (current === undefined) {
      this.say(`${name} was deleted; writing it again with the ${served} pets served.`);
      return "deleted";
    }
    if (key === this.refusedKey) return "wait";
    const stillServing = `the ${served} pets from before`;
    if (current.isFile() && current.size === 0n) {
      return this.refuse(
        key,
        `${name} is empty: a file being written starts so, and an empty file is never taken ` +
          `as an edit. Still serving ${stillServing}; ${name} will not be written until it ` +
          `changes, and acknowledged pets stay safe in ${walName}.`,
      );
    }
    let read: Awaited<ReturnType<typeof readText>>;
    try {
      read = await readText(this.file, dataFileProblem(name));
    } catch (error) {
      if (!(error instanceof StoreError && error.code === "unsafe_file")) throw error;
      return this.refuse(
        key,
        `${error.message} Not reading or writing it; still serving ${stillServing}, and ` +
          `acknowledged pets stay safe in ${walName}.`,
      );
    }
    // Changed again meanwhile, or while being read: still being written.
    if (
      read === undefined ||
      statKey(read.stat) !== key ||
      statKey(await lstatIfThereAsync(this.file)) !== key
    ) {
      return "wait";
    }
    try {
      return { stat: read.stat, parsed: parsePetFile(read.text, name) };
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      return this.refuse(
        key,
        this.editRefused(`the edit cannot be used: ${error.message}`, served),
      );
    }
  }

  /** The words for an edit refused because of `why`. */
  editRefused(why: string, served: number): string {
    return (
      `${this.name} was edited, but ${why} Still serving the ${served} pets from before; ` +
      `${this.name} will not be written until it is fixed, and acknowledged pets stay safe in ${this.walName}.`
    );
  }

  /** Refuses the version `key` of the file, saying so once. */
  refuse(key: string, message: string): "wait" {
    this.refusedKey = key;
    this.settling = undefined;
    this.say(message);
    return "wait";
  }
}

/**
 * The unnumbered pets of a file with the next ids above `above` (the ids used)
 * and above the file's own pets, in file order; throws `id_space_exhausted` when
 * int64 runs out.
 */
export function numberPets(parsed: PetFile, above: bigint | undefined): StoredPet[] {
  let max = maxId(above, parsed.pets[parsed.pets.length - 1]?.id);
  return parsed.unnumbered.map((pet) => {
    const id = idAfter(max);
    max = id;
    return { id, ...pet };
  });
}

/** For the log: what `numberPets` gave `numbered` pets of `name`. */
export function describeNumbered(numbered: readonly StoredPet[], name: string): string {
  const [first, last] = [numbered[0]!.id, numbered[numbered.length - 1]!.id];
  return numbered.length === 1
    ? `Gave 1 pet without an id in ${name} the id ${first}, and wrote it into the file.`
    : `Gave ${numbered.length} pets without an id in ${name} the ids ${first} to ${last}, ` +
        "and wrote them into the file.";
}

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
 * Merges `edited` (the edit's pets, ids given) into `served`, of which `unflushed`
 * (sorted by id) are not in the file; or the first acknowledged pet whose id the edit
 * gives another pet (`there`, its JSON).
 */
export function mergeEdit(
  served: PetIndex,
  unflushed: StoredPet[],
  edited: PetIndex,
): Merged | { there: string; pet: StoredPet } {
  const pending = new PetIndex(unflushed);
  for (const pet of unflushed) {
    const there = edited.get(pet.id);
    if (there !== undefined && petToJson(there) !== petToJson(pet)) {
      return { there: petToJson(there), pet };
    }
  }
  let known: bigint | number | undefined;
  for (const pet of edited.pets) {
    if (pending.get(pet.id) === undefined && served.get(pet.id) !== undefined) known = pet.id;
  }
  const kept: StoredPet[] = [];
  const newer: StoredPet[] = [];
  let deleted = 0;
  for (const pet of served.pets) {
    if (edited.get(pet.id) !== undefined) continue;
    if (pending.get(pet.id) !== undefined) {
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

/** For the log: what an adopted edit did. */
export function describeMerge(name: string, before: number, merged: Merged): string {
  let line = `Picked up an edit of ${name}: serving ${merged.index.size} pets (${before} before)`;
  if (merged.deleted > 0) line += `; it deleted ${merged.deleted}`;
  if (merged.unflushed.length > 0) {
    line += `; kept ${merged.unflushed.length} pets it lacks, which are added to it`;
  }
  line += ".";
  if (merged.newer.length > 0) {
    const ids = merged.newer.map((pet) => pet.id);
    const shown = ids.length <= 5 ? ids.join(", ") : `${ids.slice(0, 5).join(", ")}...`;
    line +=
      ` Kept ${ids.length === 1 ? "pet" : "pets"} ${shown}, newer than every pet the edit ` +
      "holds from the file: the edit may come from a copy read before they were added. To " +
      "delete them, stop serve, edit the file and start it again.";
  }
  return line;
}
