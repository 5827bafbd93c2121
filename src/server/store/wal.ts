/**
 * The file store's write-ahead log, the file `<file>.journal` (its name on disk is
 * kept: existing stores recover from it): every create is appended to it and
 * fdatasync'ed before it resolves. One write and sync runs at a time; creates that
 * arrive meanwhile wait and go out together in the next one (group commit), so a
 * sync is shared by many creates. Work that must not overlap a write (adopting an
 * edit, trimming the write-ahead log) runs between writes.
 *
 * A write that fails (a full disk...) is cut off again and synced before its creates
 * are rejected as `not_stored`: they are certainly not stored. When that fails too,
 * or a trimmed write-ahead log cannot be made durable, the write-ahead log stops taking creates.
 *
 * The write-ahead log is replaced whole (a new file renamed over it) whenever pets leave
 * it; its first line is then the mark of the ids used (`idsMarkLine`), so the
 * largest id ever used stays durable after its pet has left the write-ahead log.
 *
 * Changes the state's `index`, `unflushed` (a write's pets are appended to both)
 * and `idsUsedUpTo`.
 */
import { rename, unlink, type FileHandle } from "node:fs/promises";
import { idsMarkLine } from "./file-format.js";
import type { NewPet, Pet } from "../../schema/pet.js";
import { syncDirectory } from "../../files/file-safety.js";
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

/** One line of canonical JSON per pet, as `parseWal` reads them back. */
function walBytes(pets: readonly StoredPet[], idsUsedUpTo?: bigint): Buffer {
  return Buffer.from(idsMarkLine(idsUsedUpTo) + pets.map((pet) => pet.json + "\n").join(""));
}

/**
 * Writes a write-ahead log holding the mark of the ids used and `pets` under a temporary
 * name (created anew, never through a symlink), syncs it and renames it over
 * `paths.write-ahead log`. The caller syncs the directory. Resolves to the new write-ahead log,
 * open for writing, and its size.
 */
export async function writeWalFile(
  paths: StorePaths,
  idsUsedUpTo: bigint | undefined,
  pets: readonly StoredPet[],
): Promise<{ handle: FileHandle; size: number }> {
  const temp = `${paths.wal}.tmp`;
  const bytes = walBytes(pets, idsUsedUpTo);
  await clearLeftover(temp);
  const handle = await createExclusive(temp);
  try {
    await writeAllAt(handle, bytes, 0);
    await handle.sync();
    await rename(temp, paths.wal);
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => {});
    throw error;
  }
  return { handle, size: bytes.length };
}

export class WriteAheadLog {
  /** Creates waiting for the next write. */
  private waiting: Waiter[] = [];
  /** Work that must not overlap a write. */
  private exclusive: Array<() => Promise<void>> = [];
  private writing = false;
  private idleWaiters: Array<() => void> = [];
  /** Set when the write-ahead log can no longer be trusted to take writes. */
  private broken: StoreError | undefined;
  /** Why the last write failed, until one succeeds (logged once). */
  private writeProblem: string | undefined;

  /** `handle`: the write-ahead log, open, holding `size` bytes and no pet. */
  constructor(
    private handle: FileHandle,
    private size: number,
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

  /**
   * Cuts the write-ahead log down to the pets not in the file yet (`unflushed`), between
   * writes, right after a compaction wrote the others into the file.
   */
  trim(): Promise<void> {
    return this.exclusively(async () => {
      const { unflushed, index, idsUsedUpTo } = this.state;
      if (unflushed.length > 0 || index.maxId !== idsUsedUpTo) {
        return this.replaceWithin(unflushed);
      }
      // The file holds the largest id used: the mark need not survive a crash
      // on its own, so the write-ahead log is cut in place, as cheaply as before marks.
      const bytes = walBytes([], idsUsedUpTo);
      try {
        await this.handle.truncate(0);
        await writeAllAt(this.handle, bytes, 0);
        // fsync, not fdatasync: the write-ahead log's fdatasyncs are those of creates alone, as a test traces.
        await this.handle.sync();
        this.size = bytes.length;
      } catch (error) {
        // Appends must follow whole lines: no part of a mark may stay before them.
        await this.handle
          .truncate(0)
          .then(() => this.handle.sync())
          .then(
            () => void (this.size = 0),
            (cause: unknown) => {
              this.broken = asStoreError(cause, `Cannot repair ${this.paths.wal}`);
            },
          );
        throw error;
      }
    });
  }

  /** Closes the write-ahead log's file (once idle); what it holds stays. */
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
    let max = this.state.idsUsedUpTo;
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
    const bytes = walBytes(accepted.map((a) => a.stored));
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
      this.log(`Pets are stored in ${this.paths.wal} again.`);
    }
    this.size += bytes.length;
    this.state.idsUsedUpTo = max;
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
   * stops the write-ahead log from taking pets.
   */
  private async undoWrite(error: unknown): Promise<StoreError> {
    const { wal } = this.paths;
    try {
      await this.handle.truncate(this.size);
      await this.handle.datasync();
    } catch (cause) {
      this.broken = asStoreError(cause, `Cannot repair ${wal}`);
      this.log(
        `Cannot store pets in ${wal}: ${describeError(error)}, and cutting the failed write ` +
          `off failed too: ${describeError(this.broken)}. Taking no new pets until restarted.`,
      );
      return asStoreError(error, `Cannot store the pet in ${wal}`);
    }
    const problem = describeError(error);
    if (problem !== this.writeProblem) {
      this.log(
        `Cannot store pets in ${wal}: ${problem}. Answering 507 insufficient_storage ` +
          "(nothing stored) until a write succeeds.",
      );
    }
    this.writeProblem = problem;
    return notStored(error);
  }

  /**
   * Replaces the write-ahead log, durably, with one holding the mark of the ids used
   * (`idsUsedUpTo`, the state's by default) and `keep`; only from a task run by
   * `exclusively`.
   */
  async replaceWithin(
    keep: readonly StoredPet[],
    idsUsedUpTo = this.state.idsUsedUpTo,
  ): Promise<void> {
    const { handle, size } = await writeWalFile(this.paths, idsUsedUpTo, keep);
    // The write-ahead log's name now points to the new file: appends go there from now on.
    const old = this.handle;
    this.handle = handle;
    this.size = size;
    await old.close().catch(() => {});
    try {
      await syncDirectory(this.paths.directory);
    } catch (error) {
      // Until the rename is durable, a crash could bring back the old write-ahead log without
      // the pets appended from now on: stop acknowledging.
      this.broken = asStoreError(error, `Cannot sync the directory of ${this.paths.wal}`);
      throw error;
    }
  }
}
