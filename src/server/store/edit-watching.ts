/**
 * Edits of the JSON file by someone else while serving. A change of the file's own
 * stat (inode, size, mtime) is an edit. A valid edit is adopted: its pets are served,
 * with the acknowledged pets it lacks re-applied (written to it by the next
 * compaction). An edit that cannot be used (invalid, another pet under an
 * acknowledged id, no longer a regular file) is refused: the store keeps serving what
 * it had and does not write the file until it changes again. A deleted file is
 * written again with the pets served. Pets the edit wrote without an id get ids
 * above every id served, and the file is rewritten with them.
 *
 * Changes the state's `index`, `unflushed`, `version` and `rewrite` when adopting.
 */
import type { BigIntStats } from "node:fs";
import { parsePetFile, type PetFile } from "./file-format.js";
import { NO_FILE, appendPoint, readVersion, statIfExists, versionKey } from "./file-versions.js";
import type { Journal } from "./journal.js";
import { PetIndex, type StoredPet } from "./pet-index.js";
import {
  describeNumbered,
  lackedPets,
  numberPets,
  withPets,
  type StorePaths,
  type StoreState,
} from "./store-state.js";
import { StoreError } from "./types.js";

export class EditWatcher {
  /** The version of the file (see `versionKey`) that was refused; it is not written over. */
  private refusedVersion: string | undefined;

  constructor(
    private readonly paths: StorePaths,
    private readonly state: StoreState,
    private readonly journal: Journal,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * Adopts an edit of the file if there is one. Whether the store now matches the
   * file (no edit, or adopted), so that the file may be written.
   */
  async check(): Promise<boolean> {
    const current = await statIfExists(this.paths.file);
    if (versionKey(current) === versionKey(this.state.version.stat)) return true;
    return this.adopt(current);
  }

  private async adopt(current: BigIntStats | undefined): Promise<boolean> {
    const { name, journal } = this.paths;
    const { state } = this;
    if (current === undefined) {
      this.log(`${name} was deleted; writing it again with the ${state.index.size} pets served.`);
      state.version = NO_FILE;
      return true;
    }
    if (versionKey(current) === this.refusedVersion) return false;
    let read: Awaited<ReturnType<typeof readVersion>>;
    try {
      read = await readVersion(this.paths.file, name);
    } catch (error) {
      if (!(error instanceof StoreError && error.code === "unsafe_file")) throw error;
      this.refusedVersion = versionKey(current);
      this.log(
        `${error.message} Not reading or writing it; still serving the ${state.index.size} pets from ` +
          `before, and acknowledged pets stay safe in ${journal}.`,
      );
      return false;
    }
    if (read === undefined) return false;
    const refuse = (why: string): false => {
      this.refusedVersion = versionKey(read.stat);
      this.log(
        `${name} was edited, but ${why} Still serving the ${state.index.size} pets from before; ` +
          `${name} will not be written until it is fixed, and acknowledged pets stay safe in ${journal}.`,
      );
      return false;
    };
    let parsed: PetFile;
    if (read.bytes.length === 0) {
      parsed = { pets: [], unnumbered: [], appendOffset: 0, hasElements: false };
    } else {
      try {
        parsed = parsePetFile(read.bytes, name);
      } catch (error) {
        if (!(error instanceof StoreError)) throw error;
        return refuse(`the edit cannot be used: ${error.message}`);
      }
    }
    return this.journal.exclusively(async () => {
      // Above every id served, so no id a client has seen is given to another pet.
      let numbered: StoredPet[];
      try {
        numbered = numberPets(parsed.pets, parsed.unnumbered, state.index.maxId);
      } catch (error) {
        if (!(error instanceof StoreError)) throw error;
        return refuse(`the edit cannot be used: ${error.message}`);
      }
      const filePets = parsed.pets.concat(numbered);
      const lacked = lackedPets(new PetIndex(filePets), state.unflushed);
      if ("conflict" in lacked) {
        const { there, pet } = lacked.conflict;
        return refuse(
          `it holds ${there} where the pet ${pet.json} was acknowledged with the same id ` +
            "and is not in the file yet. Give the edited pet another id.",
        );
      }
      const { missing } = lacked;
      const before = state.index.size;
      state.index = new PetIndex(withPets(filePets, missing));
      state.unflushed = missing;
      this.refusedVersion = undefined;
      state.version = {
        stat: read.stat,
        // A 0-byte file has no bracket to append before, and new ids need a
        // whole file: written whole.
        ...(read.bytes.length === 0 || numbered.length > 0
          ? { appendOffset: undefined, hasElements: false }
          : appendPoint(parsed)),
      };
      state.rewrite = numbered.length > 0;
      if (numbered.length > 0) this.log(describeNumbered(numbered, name));
      this.log(
        `Picked up an edit of ${name}: serving ${state.index.size} pets (${before} before)` +
          (missing.length > 0
            ? `, with ${missing.length} acknowledged pets the edit lacked, which are added to it.`
            : "."),
      );
      return true;
    });
  }
}
