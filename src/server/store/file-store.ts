/**
 * The durable pet store behind `petstore serve <file>`: the memory store, with
 *
 * - a write-ahead log, `<file>.journal` (the name stores have always had on disk): a
 *   create is appended to it and fdatasync'ed before it resolves. One write runs at a
 *   time; creates that arrive meanwhile go out together in the next (group commit).
 *   What must not overlap a write (replacing the log, adopting an edit, a reset) runs
 *   between writes, on the same chain (`exclusively`).
 * - the file written whole (a new file, flushed and renamed over it) when it lacks
 *   acknowledged pets, about once a second (`flushIntervalMs`), after adopting an edit
 *   made by someone else (edits.ts), and at close; then a new log holding only the mark
 *   of the ids used (its first line) and the pets acknowledged meanwhile. A file over
 *   REWRITE_FREE bytes is written once the pets it lacks make 1/REWRITE_SHARE of it:
 *   the log keeps them meanwhile, and the cost of a create stays flat as the store grows.
 * - an opening that reads the file and the log (a torn last line was never
 *   acknowledged) and writes the file when the log held pets it lacks.
 * - a reset, between log writes: the pets acknowledged go into the file, then the log
 *   forgets them, then the pets of the opening are renamed over the file, the one step
 *   from before to after, so a crash leaves one or the other, whole.
 */
import type { BigIntStats } from "node:fs";
import { constants } from "node:fs";
import { rename, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { createFlushed } from "../../files/atomic-write.js";
import { lstatIfThereAsync, openNoFollow, syncDirectory } from "../../files/file-safety.js";
import { petToJson, type NewPet } from "../../schema/pet.js";
import { EditWatcher, mergeEdit, statKey, type Edit, type Merged } from "./edits.js";
import {
  acquireLock,
  clearLeftover,
  companionRefusal,
  dataFileProblem,
  readText,
  resolveDataFile,
} from "./file-kinds.js";
import { fileText, markLine, parseLog, parsePetFile } from "./pet-file.js";
import { MemoryStore, PetIndex, idAfter, maxId, petFromNew, type StoredPet } from "./memory.js";
import { demoPets } from "./seed.js";
import { asStoreError, describeError, notStored } from "./store-errors.js";
import { StoreError, type CreatedPet } from "./types.js";

/** A file up to this size is written within a tick of each create. */
const REWRITE_FREE = 1024 * 1024;
/** A larger one once the pets it lacks make this fraction of it. */
const REWRITE_SHARE = 4;

export interface FileStoreOptions {
  /** The JSON file of pets; created when missing. */
  file: string;
  /** Fill a new (missing or 0-byte) file with this many demo pets; ignored for an existing file. */
  seed?: number;
  /** One line per decision worth telling the person running the server. */
  log?: (line: string) => void;
  /** How soon acknowledged pets reach the JSON file, and how often it is checked for edits. */
  flushIntervalMs?: number;
}

export async function openFileStore(options: FileStoreOptions): Promise<FileStore> {
  const { file: name, log: say = () => {} } = options;
  const file = await resolveDataFile(name).catch((error: unknown) => {
    throw asStoreError(error, `Cannot serve ${name}`);
  });
  const release = await acquireLock(file, name, say).catch((error: unknown) => {
    throw asStoreError(error, `Cannot lock ${name}`);
  });
  const store = new FileStore(file, name, say, options.flushIntervalMs ?? 1000, release);
  try {
    await store.open(options.seed);
    return store;
  } catch (error) {
    await store.abandon();
    if (!(error instanceof StoreError)) throw asStoreError(error, `Cannot open ${name}`);
    if (error.code === "unsafe_file") {
      throw new StoreError(error.code, `Cannot serve ${name}: ${error.message}`);
    }
    if (error.code !== "corrupt" && error.code !== "invalid") throw error;
    throw new StoreError(
      error.code,
      `${error.message} Fix the file (it was left untouched) and start again.`,
    );
  }
}

interface Waiter {
  newPet: NewPet;
  resolve: (created: CreatedPet) => void;
  reject: (error: unknown) => void;
}

export class FileStore extends MemoryStore {
  private readonly wal: string;
  private readonly edits: EditWatcher;
  /** Acknowledged (in the log) but not in the file yet, by id; and the bytes of their lines. */
  private unflushed: StoredPet[] = [];
  private unflushedBytes = 0;
  /** The file as this store last wrote or adopted it (`statKey`), and its size. */
  private fileKey = statKey(undefined);
  private fileSize = 0;
  /** The file lacks more than `unflushed` (new ids, or itself): written at the next tick. */
  private rewrite = false;
  /** What opening made: a new data file ("missing", or "empty": 0 bytes) that got no pet, a new log. */
  private readonly created: { file?: "missing" | "empty"; wal?: boolean } = {};
  private log: { handle: FileHandle; size: number } | undefined;
  private pending: Waiter[] = [];
  /** Log writes and what must not overlap them, one at a time. */
  private chain: Promise<unknown> = Promise.resolve();
  /** Ticks and resets, one at a time. */
  private upkeep: Promise<unknown> = Promise.resolve();
  /** Set when the log can no longer be trusted to take writes. */
  private broken: StoreError | undefined;
  /** The last problem of a log write, or of a tick, until one succeeds (each logged once). */
  private writeProblem: string | undefined;
  private tickProblem: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly file: string,
    private readonly name: string,
    private readonly say: (line: string) => void,
    private readonly flushIntervalMs: number,
    private readonly release: () => Promise<void>,
  ) {
    super();
    this.wal = `${file}.journal`;
    this.edits = new EditWatcher(file, name, this.wal, say);
  }

  /**
   * Reads the file and the log, brings the file up to date, and starts a log of no
   * pets. The pets of the log are acknowledged: the file is taken as an edit of them
   * (`mergeEdit`), so those it lacks are kept and written into it.
   */
  async open(seed: number | undefined): Promise<void> {
    const { file, name, wal } = this;
    // Leftovers of a write cut short; the file and the log themselves are whole.
    await clearLeftover(`${file}.tmp`);
    await clearLeftover(`${wal}.tmp`);
    const logged = await readText(wal, companionRefusal(wal));
    this.created.wal = logged === undefined;
    const existing = await readText(file, dataFileProblem(name));
    const log = parseLog(logged?.text ?? "");
    if (log.tornBytes > 0) {
      this.say(
        `Ignoring the last ${log.tornBytes} bytes of ${wal}: ` +
          "an entry cut short by a crash, never acknowledged.",
      );
    }
    // A new file (missing or 0 bytes) is a new store: the mark of an earlier one does not count.
    const fresh = !existing?.stat.size;
    let ids = fresh ? undefined : log.idsUsedUpTo;
    for (const pet of log.pets) ids = maxId(ids, pet.id);
    this.index = new PetIndex(log.pets.slice());
    this.unflushed = log.pets;
    if (!fresh) {
      const merged = mergeEdit(this.index, log.pets, parsePetFile(existing.text, name), ids, name);
      if (typeof merged === "string") {
        const remedy = `Or remove ${wal} to drop the acknowledged pets it holds.`;
        throw new StoreError("invalid", `${name}: ${merged} ${remedy}`);
      }
      this.take(merged);
      if (seed !== undefined) {
        this.say(`${name} already exists (${this.size} pets): --seed ${seed} is ignored.`);
      }
    } else if (seed !== undefined && seed > 0 && log.pets.length === 0) {
      this.index = new PetIndex(demoPets(seed));
    }
    this.opening = { pets: this.index.pets, count: this.index.size };
    this.idsUsedUpTo = maxId(this.idsUsedUpTo ?? ids, this.index.maxId);
    this.fileKey = statKey(existing?.stat);
    this.fileSize = Number(existing?.stat.size ?? 0);
    const recovered = this.unflushed.length;
    if (fresh && recovered === 0) this.created.file = existing ? "empty" : "missing";
    if (fresh || recovered > 0 || this.rewrite) {
      await this.writeFile(this.index.pets);
      if (fresh) this.say(`Created ${name} with ${this.size} pets.`);
      if (recovered > 0)
        this.say(`Recovered ${recovered} acknowledged pets from ${wal} into ${name}.`);
    }
    await this.replaceLog([]);
    this.schedule();
  }

  /** Serves the pets of `merged`. */
  private take(merged: Merged): void {
    this.index = merged.index;
    this.unflushed = merged.unflushed;
    this.idsUsedUpTo = merged.idsUsedUpTo;
    this.rewrite = merged.numbered > 0;
    if (merged.gave !== undefined) this.say(merged.gave);
  }

  protected override add(newPet: NewPet): Promise<CreatedPet> {
    if (this.broken) {
      const why = describeError(this.broken);
      const message = `The pet was not stored: the fake stopped taking new pets after a failed write (${why}); restart it.`;
      return Promise.reject(new StoreError("not_stored", message));
    }
    return new Promise((resolve, reject) => {
      if (this.pending.push({ newPet, resolve, reject }) === 1) {
        void this.exclusively(() => this.writeBatch(this.pending.splice(0)));
      }
    });
  }

  override async reset(): Promise<void> {
    this.refuseIfClosed();
    const reset = async () => {
      // The log forgets its pets only once the file holds them.
      if (this.unflushed.length > 0) await this.writeFile(this.index.pets);
      await this.replaceLog([]);
      const opening = this.openingPets();
      await this.writeFile(opening);
      this.index = new PetIndex(opening);
      this.rewrite = false;
    };
    return this.serially(() =>
      this.exclusively(reset).catch((error: unknown) => {
        throw asStoreError(error, `Cannot reset ${this.name}`);
      }),
    );
  }

  /** Finishes pending writes, brings the JSON file exactly up to date, releases the file. */
  override close(): Promise<void> {
    return (this.closing ??= this.shutDown());
  }

  /**
   * For a server that failed to start, instead of `close()`: closes the store and
   * removes what its opening created (a new data file that got no pet, a new log),
   * so a failed start leaves nothing behind. Only right after opening.
   */
  async abandon(): Promise<void> {
    await this.stop();
    await this.log?.handle.close().catch(() => {});
    try {
      if (this.created.file && statKey(await lstatIfThereAsync(this.file)) === this.fileKey) {
        if (this.created.file === "missing") await unlink(this.file);
        else await truncate(this.file);
      }
      if (this.created.wal) await unlink(this.wal).catch(() => {});
      await syncDirectory(path.dirname(this.file));
    } catch {
      // A failed start still fails with its own error; what cannot be removed stays.
    }
    await this.release();
  }

  private async shutDown(): Promise<void> {
    await this.stop();
    let failure: unknown;
    await this.tick(true).catch((error: unknown) => (failure = error));
    await this.log?.handle.close().catch(() => {});
    if (this.unflushed.length > 0) {
      this.say(
        `${this.unflushed.length} acknowledged pets are not in ${this.name} yet; they stay ` +
          `in ${this.wal} and are added when the file is next opened.`,
      );
    }
    await this.release();
    if (failure !== undefined) throw asStoreError(failure, `Cannot update ${this.name}`);
  }

  /** Takes no more work, and waits for the work taken. */
  private async stop(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.upkeep;
    await this.chain;
  }

  private exclusively<T>(task: () => Promise<T>): Promise<T> {
    const result = this.chain.then(task);
    this.chain = result.catch(() => {});
    return result;
  }

  private serially<T>(task: () => Promise<T>): Promise<T> {
    const result = this.upkeep.then(task);
    this.upkeep = result.catch(() => {});
    return result;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      void this.serially(() => this.tick())
        .then(
          () => (this.tickProblem = undefined),
          (error: unknown) => {
            const message =
              `Cannot update ${this.name}: ${describeError(error)}. Acknowledged pets are safe ` +
              `in ${this.wal}; trying again.`;
            if (message !== this.tickProblem) this.say(message);
            this.tickProblem = message;
          },
        )
        .finally(() => this.closed || this.schedule());
    }, this.flushIntervalMs);
    this.timer.unref();
  }

  /**
   * Adopts a settled edit of the file if there is one, then writes the file when it
   * is due; `last`: before closing, a whole edit is taken without waiting, and the
   * file is written whatever its size.
   */
  private async tick(last = false): Promise<void> {
    const edit = await this.edits.check(this.fileKey, this.index.size, last);
    if (edit === "wait") return;
    if (edit === "deleted") {
      this.fileKey = statKey(undefined);
      this.rewrite = true;
    } else if (edit !== "same" && !(await this.exclusively(() => this.adopt(edit)))) {
      return;
    }
    const due =
      last || this.fileSize <= REWRITE_FREE || this.unflushedBytes * REWRITE_SHARE >= this.fileSize;
    if (!this.rewrite && !(due && this.unflushed.length > 0)) return;
    const flushed = this.unflushed.length;
    if (!(await this.writeFile(this.index.pets.slice(), true))) return;
    this.rewrite = false;
    await this.exclusively(() => this.replaceLog(this.unflushed.slice(flushed)));
  }

  /** Serves `edit` merged with the pets served; false when it is refused. */
  private async adopt(edit: Edit): Promise<boolean> {
    const served = this.index.size;
    const ids = this.idsUsedUpTo;
    const merged = mergeEdit(this.index, this.unflushed, edit.parsed, ids, this.name);
    if (typeof merged === "string")
      return this.edits.refuse(statKey(edit.stat), merged, served) && false;
    // Kept pets that had reached the file are only in memory now: into the log with
    // them (and with the new mark of the ids used) before serving.
    if (merged.newer || merged.idsUsedUpTo !== ids) {
      await this.replaceLog(merged.unflushed, merged.idsUsedUpTo);
    }
    this.take(merged);
    this.fileKey = statKey(edit.stat);
    this.fileSize = Number(edit.stat.size);
    const { name, size } = this;
    this.say(`Picked up an edit of ${name}: serving ${size} pets (${served} before)${merged.said}`);
    return true;
  }

  /**
   * Writes the file whole: `<file>.tmp` (created anew, never through a symlink),
   * flushed, renamed over the file, the directory flushed. `ifUnchanged`: not when
   * the file changed meanwhile (an edit that landed wins: it is looked at next).
   */
  private async writeFile(pets: readonly StoredPet[], ifUnchanged = false): Promise<boolean> {
    const temp = `${this.file}.tmp`;
    await clearLeftover(temp);
    const handle = await createFlushed(temp, fileText(pets));
    const stat: BigIntStats = await handle.stat({ bigint: true }).finally(() => handle.close());
    if (ifUnchanged && statKey(await lstatIfThereAsync(this.file)) !== this.fileKey) {
      await unlink(temp);
      return false;
    }
    await rename(temp, this.file);
    await syncDirectory(path.dirname(this.file));
    this.fileKey = statKey(stat);
    this.fileSize = Number(stat.size);
    return true;
  }

  /** Replaces the log, durably, with the mark of the ids used and `keep` (the pets not in the file). */
  private async replaceLog(keep: StoredPet[], ids = this.idsUsedUpTo): Promise<void> {
    const temp = `${this.wal}.tmp`;
    const lines = keep.map((pet) => petToJson(pet) + "\n").join("");
    const text = markLine(ids) + lines;
    await clearLeftover(temp);
    const handle = await createFlushed(temp, [text]);
    // Closed first: Windows renames nothing over an open file.
    const old = this.log;
    await old?.handle.close().catch(() => {});
    await rename(temp, this.wal).catch(async (error: unknown) => {
      await handle.close();
      if (old)
        this.log = { handle: await openNoFollow(this.wal, constants.O_WRONLY), size: old.size };
      throw error;
    });
    // The log's name is the new file's now: appends go there.
    this.log = { handle, size: Buffer.byteLength(text) };
    this.unflushed = keep;
    this.unflushedBytes = Buffer.byteLength(lines);
    this.idsUsedUpTo = ids;
    await syncDirectory(path.dirname(this.wal)).catch((error: unknown) => {
      // Until the rename is durable, a crash could bring back the old log without the
      // pets appended from now on: stop acknowledging.
      this.broken = asStoreError(error, `Cannot sync the directory of ${this.wal}`);
      throw error;
    });
  }

  private async writeBatch(batch: Waiter[]): Promise<void> {
    const accepted: Array<{ waiter: Waiter; created: CreatedPet }> = [];
    let max = this.idsUsedUpTo;
    for (const waiter of batch) {
      try {
        const pet = petFromNew(waiter.newPet, idAfter(max));
        max = pet.id;
        accepted.push({ waiter, created: { pet, json: petToJson(pet) } });
      } catch (error) {
        waiter.reject(error);
      }
    }
    if (accepted.length === 0) return;
    const bytes = Buffer.from(accepted.map((a) => a.created.json + "\n").join(""));
    const log = this.log!;
    try {
      for (let done = 0; done < bytes.length;) {
        const at = log.size + done;
        done += (await log.handle.write(bytes, done, bytes.length - done, at)).bytesWritten;
      }
      await log.handle.datasync();
    } catch (error) {
      const failure = await this.undoWrite(error);
      for (const { waiter } of accepted) waiter.reject(failure);
      return;
    }
    if (this.writeProblem !== undefined) this.say(`Pets are stored in ${this.wal} again.`);
    this.writeProblem = undefined;
    log.size += bytes.length;
    this.unflushedBytes += bytes.length;
    this.idsUsedUpTo = max;
    for (const { waiter, created } of accepted) {
      this.index.append(created.pet);
      this.unflushed.push(created.pet);
      waiter.resolve(created);
    }
  }

  /**
   * After a failed write: cuts off whatever part of the batch landed, durably, so
   * the batch is certainly not stored (and the next one follows whole lines). The
   * rejection for the batch: `not_stored` once undone; `io` (the outcome is unknown:
   * the bytes may be replayed at the next start) when the undo fails too, which also
   * stops the store from taking pets.
   */
  private async undoWrite(error: unknown): Promise<StoreError> {
    const { handle, size } = this.log!;
    const problem = describeError(error);
    try {
      await handle.truncate(size);
      await handle.datasync();
    } catch (cause) {
      this.broken = asStoreError(cause, `Cannot repair ${this.wal}`);
      this.say(
        `Cannot store pets in ${this.wal}: ${problem}, and cutting the failed write off ` +
          `failed too: ${describeError(this.broken)}. Taking no new pets until restarted.`,
      );
      return asStoreError(error, `Cannot store the pet in ${this.wal}`);
    }
    if (problem !== this.writeProblem) {
      this.say(
        `Cannot store pets in ${this.wal}: ${problem}. Answering 507 insufficient_storage ` +
          "(nothing stored) until a write succeeds.",
      );
    }
    this.writeProblem = problem;
    return notStored(error);
  }
}

/** Empties `file` again (a 0-byte file the opening filled), never through a symlink. */
async function truncate(file: string): Promise<void> {
  const handle = await openNoFollow(file, constants.O_WRONLY);
  await handle.truncate(0).finally(() => handle.close());
}
