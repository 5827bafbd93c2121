/**
 * Edits of the JSON file by someone else while serving. A change of the file's own
 * stat (inode, size, mtime) is an edit in progress; it is looked at only once the
 * stat has stayed the same from one check to the next (a writer that truncates and
 * then writes in chunks, as `cat new.json > pets.json` and editors saving in place
 * do, is still writing). Until then, and while the file is empty (0 bytes: a write
 * that has only begun), invalid, or no longer a regular file, the store keeps
 * serving what it had and never writes the file: what a writer put there is never
 * written over. A valid, settled edit is merged (`mergeEdit`): its pets are served,
 * the acknowledged pets its copy cannot have known are kept, and those are written
 * into it by the next compaction. A deleted file is written again with the pets
 * served. Pets the edit wrote without an id get ids above every id used, and the
 * file is rewritten with them.
 *
 * Changes the state's `index`, `unflushed`, `version`, `rewrite` and `idsUsedUpTo`
 * when adopting.
 */
import type { BigIntStats } from "node:fs";
import { parsePetFile, type PetFile } from "./file-format.js";
import { NO_FILE, appendPoint, readVersion, statIfExists, versionKey } from "./file-versions.js";
import type { WriteAheadLog } from "./wal.js";
import { mergeEdit, type Merged } from "./edit-merge.js";
import { PetIndex, type StoredPet } from "./pet-index.js";
import {
  describeNumbered,
  maxId,
  numberPets,
  type StorePaths,
  type StoreState,
} from "./store-state.js";
import { StoreError } from "./types.js";

export class EditWatcher {
  /** The version of the file (see `versionKey`) that was refused; it is not written over. */
  private refusedVersion: string | undefined;
  /** The version seen at the last check, when it was not the store's: still settling. */
  private settling: string | undefined;

  constructor(
    private readonly paths: StorePaths,
    private readonly state: StoreState,
    private readonly wal: WriteAheadLog,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * Adopts an edit of the file if there is a settled one. Whether the store now
   * matches the file (no edit, or adopted), so that the file may be written.
   * `last`: the check before closing, which takes a complete, valid edit without
   * waiting for it to settle.
   */
  async check(last = false): Promise<boolean> {
    const current = await statIfExists(this.paths.file);
    const key = versionKey(current);
    if (key === versionKey(this.state.version.stat)) {
      this.settling = undefined;
      return true;
    }
    if (!last && key !== this.settling) {
      this.settling = key;
      return false;
    }
    return this.adopt(current);
  }

  private async adopt(current: BigIntStats | undefined): Promise<boolean> {
    const { name, wal } = this.paths;
    const { state } = this;
    if (current === undefined) {
      this.log(`${name} was deleted; writing it again with the ${state.index.size} pets served.`);
      state.version = NO_FILE;
      return true;
    }
    if (versionKey(current) === this.refusedVersion) return false;
    if (current.isFile() && current.size === 0n) {
      this.refusedVersion = versionKey(current);
      this.log(
        `${name} is empty: a file being written starts so, and an empty file is never taken ` +
          `as an edit. Still serving the ${state.index.size} pets from before; ${name} will not ` +
          `be written until it changes, and acknowledged pets stay safe in ${wal}.`,
      );
      return false;
    }
    let read: Awaited<ReturnType<typeof readVersion>>;
    try {
      read = await readVersion(this.paths.file, name);
    } catch (error) {
      if (!(error instanceof StoreError && error.code === "unsafe_file")) throw error;
      this.refusedVersion = versionKey(current);
      this.log(
        `${error.message} Not reading or writing it; still serving the ${state.index.size} pets from ` +
          `before, and acknowledged pets stay safe in ${wal}.`,
      );
      return false;
    }
    // Changed again meanwhile, or while being read: still being written.
    if (
      read === undefined ||
      versionKey(read.stat) !== versionKey(current) ||
      versionKey(await statIfExists(this.paths.file)) !== versionKey(current)
    ) {
      return false;
    }
    const refuse = (why: string): false => {
      this.refusedVersion = versionKey(read.stat);
      this.log(
        `${name} was edited, but ${why} Still serving the ${state.index.size} pets from before; ` +
          `${name} will not be written until it is fixed, and acknowledged pets stay safe in ${wal}.`,
      );
      return false;
    };
    let parsed: PetFile;
    try {
      parsed = parsePetFile(read.bytes, name);
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      return refuse(`the edit cannot be used: ${error.message}`);
    }
    return this.wal.exclusively(async () => {
      // Above every id used, so no id a client has seen is given to another pet.
      let numbered: StoredPet[];
      try {
        numbered = numberPets(parsed.pets, parsed.unnumbered, state.idsUsedUpTo);
      } catch (error) {
        if (!(error instanceof StoreError)) throw error;
        return refuse(`the edit cannot be used: ${error.message}`);
      }
      const edited = new PetIndex(parsed.pets.concat(numbered));
      const merged = mergeEdit(state.index, state.unflushed, edited);
      if ("conflict" in merged) {
        const { there, pet } = merged.conflict;
        return refuse(
          `it holds ${there} where the pet ${pet.json} was acknowledged with the same id ` +
            "and is not in the file yet. Give the edited pet another id.",
        );
      }
      const idsUsedUpTo = maxId(state.idsUsedUpTo, edited.maxId);
      // Pets kept that had reached the file are only in memory now: into the
      // write-ahead log with them (and with a new mark of the ids used) before serving.
      if (merged.newer.length > 0 || idsUsedUpTo !== state.idsUsedUpTo) {
        await this.wal.replaceWithin(merged.unflushed, idsUsedUpTo);
      }
      const before = state.index.size;
      state.index = merged.index;
      state.unflushed = merged.unflushed;
      state.idsUsedUpTo = idsUsedUpTo;
      this.refusedVersion = undefined;
      this.settling = undefined;
      state.version = {
        stat: read.stat,
        // New ids need a whole file.
        ...(numbered.length > 0
          ? { appendOffset: undefined, hasElements: false }
          : appendPoint(parsed)),
      };
      state.rewrite = numbered.length > 0;
      if (numbered.length > 0) this.log(describeNumbered(numbered, name));
      this.log(this.describe(before, merged));
      return true;
    });
  }

  private describe(before: number, merged: Merged): string {
    const { name } = this.paths;
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
}
