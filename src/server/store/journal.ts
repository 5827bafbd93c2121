/**
 * The file store's journal, `<file>.journal`: every create is appended to it and
 * fdatasync'ed before it resolves. One write and sync runs at a time; creates that
 * arrive meanwhile wait and go out together in the next one (group commit), so a
 * sync is shared by many creates. Work that must not overlap a write (adopting an
 * edit, trimming the journal) runs between writes.
 *
 * A write that fails (a full disk...) is cut off again and synced before its creates
 * are rejected as `not_stored`: they are certainly not stored. When that fails too,
 * or a trimmed journal cannot be made durable, the journal stops taking creates.
 *
 * Changes the state's `index` and `unflushed` (a write's pets are appended to both).
 */
import { rename, unlink, type FileHandle } from "node:fs/promises";
import type { NewPet, Pet } from "../../schema/pet.js";
import { syncDirectory } from "../../schema/file-safety.js";
import { writeAllAt } from "./durable.js";
import { clearLeftover, createExclusive } from "./file-kinds.js";
import { idAfter, petFromNew, toStoredPet, type StoredPet } from "./pet-index.js";
import type { StorePaths, StoreState } from "./store-state.js";
import { asStoreError, describeError, notStored } from "./store-errors.js";
import { StoreError, type CreatedPet } from "./types.js";

interface Waiter {
  newPet: NewPet;
  resolve: (created: CreatedPet) => void;
  reject: (error: unknown) => void;
}

/** One line of canonical JSON per pet, as `parseJournal` reads them back. */
function journalBytes(pets: readonly StoredPet[]): Buffer {
  return Buffer.from(pets.map((pet) => pet.json + "\n").join(""));
}

export class Journal {
  private size = 0;
  /** Creates waiting for the next write. */
  private waiting: Waiter[] = [];
  /** Work that must not overlap a write. */
  private exclusive: Array<() => Promise<void>> = [];
  private writing = false;
  private idleWaiters: Array<() => void> = [];
  /** Set when the journal can no longer be trusted to take writes. */
  private broken: StoreError | undefined;
  /** Why the last write failed, until one succeeds (logged once). */
  private writeProblem: string | undefined;

  /** `handle`: the journal, open and empty. */
  constructor(
    private handle: FileHandle,
    private readonly paths: StorePaths,
    private readonly state: StoreState,
    private readonly log: (line: string) => void,
  ) {}

  /** Stores a valid pet under the next id; resolves once it is durable. */
  append(newPet: NewPet): Promise<CreatedPet> {
    if (this.broken) {
      return Promise.reject(
        new StoreError(
          "not_stored",
          `The pet was not stored: the fake stopped taking new pets after a failed write ` +
            `(${describeError(this.broken)}); restart it.`,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      this.waiting.push({ newPet, resolve, reject });
      this.startWriting();
    });
  }

  /** Runs `task` between writes. */
  exclusively<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.exclusive.push(() => task().then(resolve, reject));
      this.startWriting();
    });
  }

  /** Resolves when no write or exclusive task is running or waiting. */
  idle(): Promise<void> {
    return this.writing
      ? new Promise((resolve) => this.idleWaiters.push(resolve))
      : Promise.resolve();
  }

  /** Cuts the journal down to the pets not in the file yet (`unflushed`), between writes. */
  trim(): Promise<void> {
    return this.exclusively(() => this.rewrite(this.state.unflushed));
  }

  /** Empties the journal, durably; only from a task run by `exclusively`. */
  emptyWithin(): Promise<void> {
    return this.rewrite([]);
  }

  /** Closes the journal's file (once idle); what it holds stays. */
  close(): Promise<void> {
    return this.handle.close().catch(() => {});
  }

  private startWriting(): void {
    if (this.writing) return;
    this.writing = true;
    void this.writeUntilIdle();
  }

  private async writeUntilIdle(): Promise<void> {
    for (;;) {
      const task = this.exclusive.shift();
      if (task) {
        await task();
        continue;
      }
      if (this.waiting.length === 0) break;
      await this.writeBatch(this.waiting.splice(0));
    }
    this.writing = false;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private async writeBatch(batch: Waiter[]): Promise<void> {
    const accepted: Array<{ waiter: Waiter; pet: Pet; stored: StoredPet }> = [];
    let max = this.state.index.maxId;
    for (const waiter of batch) {
      let id: bigint;
      try {
        id = idAfter(max);
      } catch (error) {
        waiter.reject(error);
        continue;
      }
      max = id;
      const pet = petFromNew(waiter.newPet, id);
      accepted.push({ waiter, pet, stored: toStoredPet(pet) });
    }
    if (accepted.length === 0) return;
    const bytes = journalBytes(accepted.map((a) => a.stored));
    try {
      await writeAllAt(this.handle, bytes, this.size);
      await this.handle.datasync();
    } catch (error) {
      const failure = await this.undoWrite(error);
      for (const a of accepted) a.waiter.reject(failure);
      return;
    }
    if (this.writeProblem !== undefined) {
      this.writeProblem = undefined;
      this.log(`Pets are stored in ${this.paths.journal} again.`);
    }
    this.size += bytes.length;
    for (const { waiter, pet, stored } of accepted) {
      this.state.index.append(stored);
      this.state.unflushed.push(stored);
      waiter.resolve({ pet, json: stored.json });
    }
  }

  /**
   * After a failed write: cuts off whatever part of the batch landed, durably, so
   * the batch is certainly not stored (and the next one follows whole lines). The
   * rejection for the batch: `not_stored` once undone; `io` (the outcome is unknown:
   * the bytes may be replayed at the next start) when the undo fails too, which also
   * stops the journal from taking pets.
   */
  private async undoWrite(error: unknown): Promise<StoreError> {
    const { journal } = this.paths;
    try {
      await this.handle.truncate(this.size);
      await this.handle.datasync();
    } catch (cause) {
      this.broken = asStoreError(cause, `Cannot repair ${journal}`);
      this.log(
        `Cannot store pets in ${journal}: ${describeError(error)}, and cutting the failed write ` +
          `off failed too: ${describeError(this.broken)}. Taking no new pets until restarted.`,
      );
      return asStoreError(error, `Cannot store the pet in ${journal}`);
    }
    const problem = describeError(error);
    if (problem !== this.writeProblem) {
      this.log(
        `Cannot store pets in ${journal}: ${problem}. Answering 507 insufficient_storage ` +
          "(nothing stored) until a write succeeds.",
      );
    }
    this.writeProblem = problem;
    return notStored(error);
  }

  /** Replaces the journal with one holding just `keep`. */
  private async rewrite(keep: readonly StoredPet[]): Promise<void> {
    if (keep.length === 0) {
      await this.handle.truncate(0);
      await this.handle.datasync();
      this.size = 0;
      return;
    }
    const temp = `${this.paths.journal}.tmp`;
    const bytes = journalBytes(keep);
    await clearLeftover(temp);
    const handle = await createExclusive(temp);
    try {
      await writeAllAt(handle, bytes, 0);
      await handle.sync();
      await rename(temp, this.paths.journal);
    } catch (error) {
      await handle.close();
      await unlink(temp).catch(() => {});
      throw error;
    }
    // The journal's name now points to the new file: appends go there from now on.
    const old = this.handle;
    this.handle = handle;
    this.size = bytes.length;
    await old.close().catch(() => {});
    try {
      await syncDirectory(this.paths.directory);
    } catch (error) {
      // Until the rename is durable, a crash could bring back the old journal without
      // the pets appended from now on: stop acknowledging.
      this.broken = asStoreError(error, `Cannot sync the directory of ${this.paths.journal}`);
      throw error;
    }
  }
}
