/**
 * The durable pet store behind `petstore serve <file>`. Pets are served from memory.
 *
 * - A create is appended to the write-ahead log, `<file>.journal` (the name stores have
 *   always had on disk), and fdatasync'ed before it resolves. One write runs at a time;
 *   creates that arrive meanwhile go out together in the next (group commit). Work that
 *   must not overlap a write (replacing the log, adopting an edit, a reset) runs between
 *   writes (`exclusively`).
 * - About once a second (`flushIntervalMs`) an edit of the file by someone else is
 *   adopted (edits.ts), then the file is written whole when it lacks pets: a new file,
 *   flushed and renamed over it, then a new log holding only the mark of the ids used
 *   (its first line) and the pets acknowledged meanwhile. A file over REWRITE_FREE bytes
 *   is written only once the pets it lacks make 1/REWRITE_SHARE of it, so that writes do
 *   not cost more as the store grows; the log holds them meanwhile.
 * - Opening reads the file and the log (a torn last line was never acknowledged),
 *   writes the file when the log held pets it lacks, and starts a new log. `close()`
 *   writes the file a last time; `abandon()`, for a server that failed to start, removes
 *   what the opening created.
 * - A reset (between log writes) writes the pets acknowledged into the file, then a log
 *   of no pets, then the pets of the opening over the file: the rename is the one step
 *   from before to after, so a crash leaves one or the other, whole.
 */
import type { BigIntStats } from "node:fs";
import { constants } from "node:fs";
import { rename, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { createFlushed } from "../../files/atomic-write.js";
import {
  isMissing,
  lstatIfThereAsync,
  openNoFollow,
  syncDirectory,
} from "../../files/file-safety.js";
import { petToJson, type NewPet, type Pet } from "../../schema/pet.js";
import {
  EditWatcher,
  describeMerge,
  describeNumbered,
  mergeEdit,
  numberPets,
  statKey,
  type Edit,
} from "./edits.js";
import {
  clearLeftover,
  companionRefusal,
  dataFileProblem,
  missingDirectory,
  readText,
  resolveDataFile,
} from "./file-kinds.js";
import { acquireLock } from "./lock.js";
import { fileText, markLine, parseLog, parsePetFile } from "./pet-file.js";
import {
  PetIndex,
  checkNewPet,
  idAfter,
  maxId,
  petFromNew,
  withPets,
  type StoredPet,
} from "./pets.js";
import { demoPets } from "./seed.js";
import { asStoreError, describeError, notStored } from "./store-errors.js";
import { StoreError, type CreatedPet, type ListOptions, type PetStore } from "./types.js";

/** A file up to this size is written within a tick of each create. */
const REWRITE_FREE = 4 * 1024 * 1024;
/** A larger one once the pets it lacks make this fraction of it (the cost per create stays flat). */
const REWRITE_SHARE = 8;

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

export interface FileStore extends PetStore {
  /**
   * For a server that failed to start, instead of `close()`: closes the store and
   * removes what its opening created (a new data file that got no pet, a new
   * write-ahead log), so a failed start leaves nothing behind. Only right after opening.
   */
  abandon(): Promise<void>;
}

export async function openFileStore(options: FileStoreOptions): Promise<FileStore> {
  const name = options.file;
  const file = await resolveDataFile(name).catch((error: unknown) => {
    throw asStoreError(error, `Cannot serve ${name}`);
  });
  const say = options.log ?? (() => {});
  const release = await acquireLock(file, name, say).catch((error: unknown) => {
    throw isMissing(error)
      ? missingDirectory(name, path.dirname(file))
      : asStoreError(error, `Cannot lock ${name}`);
  });
  const store = new OpenFileStore(file, name, say, options.flushIntervalMs ?? 1000, release);
  try {
    await store.open(options.seed);
  } catch (error) {
    await store.abandon();
    if (error instanceof StoreError && error.code === "unsafe_file") {
      throw new StoreError(error.code, `Cannot serve ${name}: ${error.message}`);
    }
    if (error instanceof StoreError && (error.code === "corrupt" || error.code === "invalid")) {
      throw new StoreError(
        error.code,
        `${error.message} Fix the file (it was left untouched) and start again.`,
      );
    }
    throw asStoreError(error, `Cannot open ${name}`);
  }
  return store;
}

interface Waiter {
  newPet: NewPet;
  resolve: (created: CreatedPet) => void;
  reject: (error: unknown) => void;
}

class OpenFileStore implements FileStore {
  private readonly wal: string;
  private readonly edits: EditWatcher;
  private index = new PetIndex();
  /** The pets served right after opening, for `reset`. */
  private opening: StoredPet[] = [];
  /** The largest id ever given or served: new ids go above it. The log's first line. */
  private idsUsedUpTo: bigint | undefined;
  /** Acknowledged (in the log) but not in the file yet, by id; and the bytes of their lines. */
  private unflushed: StoredPet[] = [];
  private unflushedBytes = 0;
  /** The file as this store last wrote or adopted it (`statKey`), and its size. */
  private fileKey = statKey(undefined);
  private fileSize = 0;
  /** The file lacks something besides `unflushed` (new ids, or itself): written at the next tick. */
  private rewrite = false;
  /** What opening made: a new data file ("missing", or "empty": 0 bytes) that got no pet, a new log. */
  private readonly created: { file?: "missing" | "empty"; wal: boolean } = { wal: false };
  private logFile: { handle: FileHandle; size: number } | undefined;
  private waiting: Waiter[] = [];
  private exclusive: Array<() => Promise<void>> = [];
  private writing = false;
  private idleWaiters: Array<() => void> = [];
  /** Set when the log can no longer be trusted to take writes. */
  private broken: StoreError | undefined;
  /** Why the last log write failed, until one succeeds; or the last tick's problem (logged once). */
  private writeProblem: string | undefined;
  private tickProblem: string | undefined;
  /** Ticks and resets, one at a time. */
  private serial: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly file: string,
    private readonly name: string,
    private readonly say: (line: string) => void,
    private readonly flushIntervalMs: number,
    private readonly release: () => Promise<void>,
  ) {
    this.wal = `${file}.journal`;
    this.edits = new EditWatcher(file, name, this.wal, say);
  }

  get size(): number {
    return this.index.size;
  }

  get revision(): number {
    return this.index.revision;
  }

  listJson(options: ListOptions): string {
    return this.index.list(options);
  }

  getJson(id: bigint): string | undefined {
    const pet = this.index.get(id);
    return pet && petToJson(pet);
  }

  create(body: unknown): Promise<CreatedPet> {
    try {
      const newPet = checkNewPet(body);
      if (this.closed) throw this.closedError();
      if (this.broken) {
        throw new StoreError(
          "not_stored",
          `The pet was not stored: the fake stopped taking new pets after a failed write ` +
            `(${describeError(this.broken)}); restart it.`,
        );
      }
      return new Promise((resolve, reject) => {
        this.waiting.push({ newPet, resolve, reject });
        this.startWriting();
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  reset(): Promise<void> {
    if (this.closed) return Promise.reject(this.closedError());
    const reset = async () => {
      // The log forgets its pets only once the file holds them.
      if (this.unflushed.length > 0) await this.writeFile(this.index.pets);
      await this.replaceLog([]);
      await this.writeFile(this.opening);
      this.index = new PetIndex(this.opening.slice());
      this.rewrite = false;
    };
    return this.serially(() =>
      this.exclusively(reset).catch((error: unknown) => {
        throw asStoreError(error, `Cannot reset ${this.name}`);
      }),
    );
  }

  close(): Promise<void> {
    return (this.closing ??= this.shutDown());
  }

  async abandon(): Promise<void> {
    await this.stop();
    await this.logFile?.handle.close().catch(() => {});
    try {
      if (
        this.created.file !== undefined &&
        statKey(await lstatIfThereAsync(this.file)) === this.fileKey
      ) {
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

  /** Reads the file and the log, brings the file up to date, and starts a log of no pets. */
  async open(seed: number | undefined): Promise<void> {
    const { file, name, wal } = this;
    // Leftovers of a write cut short; the file and the log themselves are whole.
    await clearLeftover(`${file}.tmp`);
    await clearLeftover(`${wal}.tmp`);
    const logged = await readText(wal, companionRefusal(wal));
    this.created.wal = logged === undefined;
    const existing = await readText(file, dataFileProblem(name));
    const log = parseLog(logged?.text ?? "");
    // A new file (missing or 0 bytes) is a new store: the mark of an earlier one does not count.
    const fresh = existing === undefined || existing.stat.size === 0n;
    let ids = log.pets.reduce<bigint | undefined>(
      (max, pet) => maxId(max, pet.id),
      fresh ? undefined : log.idsUsedUpTo,
    );
    let pets: StoredPet[] = [];
    let numbered: StoredPet[] = [];
    if (existing !== undefined && !fresh) {
      const parsed = parsePetFile(existing.text, name);
      numbered = numberPets(parsed, ids);
      pets = parsed.pets.concat(numbered);
      if (seed !== undefined) {
        this.say(`${name} already exists (${pets.length} pets): --seed ${seed} is ignored.`);
      }
    } else if (seed !== undefined && seed > 0 && log.pets.length === 0) {
      pets = demoPets(seed);
    }
    if (log.tornBytes > 0) {
      this.say(
        `Ignoring the last ${log.tornBytes} bytes of ${wal}: ` +
          "an entry cut short by a crash, never acknowledged.",
      );
    }
    const lacked = this.lackedBy(new PetIndex(pets), log.pets);
    this.index = new PetIndex(withPets(pets, lacked));
    this.opening = this.index.pets.slice();
    this.idsUsedUpTo = ids = maxId(ids, this.index.maxId);
    this.fileKey = statKey(existing?.stat);
    if (fresh && lacked.length === 0) this.created.file = existing ? "empty" : "missing";
    if (fresh || lacked.length > 0 || numbered.length > 0) {
      await this.writeFile(this.index.pets);
      if (fresh) this.say(`Created ${name} with ${this.index.size} pets.`);
      if (numbered.length > 0) this.say(describeNumbered(numbered, name));
      if (lacked.length > 0) {
        this.say(`Recovered ${lacked.length} acknowledged pets from ${wal} into ${name}.`);
      }
    } else {
      this.fileSize = Number(existing?.stat.size ?? 0);
    }
    await this.replaceLog([]);
    this.schedule();
  }

  /** The `logged` pets that `file` lacks; refuses one whose id the file holds as another pet. */
  private lackedBy(file: PetIndex, logged: readonly StoredPet[]): StoredPet[] {
    const lacked = new Map<string, StoredPet>();
    for (const pet of logged) {
      const there = file.get(pet.id) ?? lacked.get(String(pet.id));
      if (there === undefined) lacked.set(String(pet.id), pet);
      else if (petToJson(there) !== petToJson(pet)) {
        throw new StoreError(
          "invalid",
          `${this.name} holds ${petToJson(there)}, but ${this.wal} holds the acknowledged pet ` +
            `${petToJson(pet)} with the same id. Give the pet in ${this.name} another id, or ` +
            `remove ${this.wal} to drop the acknowledged pets it holds.`,
        );
      }
    }
    return [...lacked.values()];
  }

  private closedError(): StoreError {
    return new StoreError("io", `The store of ${this.name} is closed.`);
  }

  private serially<T>(task: () => Promise<T>): Promise<T> {
    const result = this.serial.then(task);
    this.serial = result.catch(() => {});
    return result;
  }

  /** Takes no more work and waits for what was taken; closes the log. */
  private async stop(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.serial;
    if (this.writing) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private async shutDown(): Promise<void> {
    await this.stop();
    let failure: unknown;
    await this.tick(true).catch((error: unknown) => (failure = error));
    await this.logFile?.handle.close().catch(() => {});
    if (this.unflushed.length > 0) {
      this.say(
        `${this.unflushed.length} acknowledged pets are not in ${this.name} yet; they stay ` +
          `in ${this.wal} and are added when the file is next opened.`,
      );
    }
    await this.release();
    if (failure !== undefined) throw asStoreError(failure, `Cannot update ${this.name}`);
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
    if (this.rewrite || (this.unflushed.length > 0 && due)) {
      const flushed = this.unflushed.length;
      if (!(await this.writeFile(this.index.pets.slice(), true))) return;
      this.rewrite = false;
      await this.exclusively(() => this.replaceLog(this.unflushed.slice(flushed)));
    }
  }

  /** Serves `edit` merged with the pets served; false when it is refused. */
  private async adopt(edit: Edit): Promise<boolean> {
    const served = this.index.size;
    const refuse = (why: string) => {
      this.edits.refuse(statKey(edit.stat), this.edits.editRefused(why, served));
      return false;
    };
    let numbered: StoredPet[];
    try {
      // Above every id used, so no id a client has seen is given to another pet.
      numbered = numberPets(edit.parsed, this.idsUsedUpTo);
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      return refuse(`the edit cannot be used: ${error.message}`);
    }
    const edited = new PetIndex(edit.parsed.pets.concat(numbered));
    const merged = mergeEdit(this.index, this.unflushed, edited);
    if (!("index" in merged)) {
      return refuse(
        `it holds ${merged.there} where the pet ${petToJson(merged.pet)} was acknowledged ` +
          "with the same id and is not in the file yet. Give the edited pet another id.",
      );
    }
    const ids = maxId(this.idsUsedUpTo, edited.maxId);
    // Pets kept that had reached the file are only in memory now: into the log with
    // them (and with the new mark of the ids used) before serving.
    if (merged.newer.length > 0 || ids !== this.idsUsedUpTo) {
      await this.replaceLog(merged.unflushed, ids);
    }
    this.index = merged.index;
    this.unflushed = merged.unflushed;
    this.fileKey = statKey(edit.stat);
    this.fileSize = Number(edit.stat.size);
    this.rewrite = numbered.length > 0;
    if (numbered.length > 0) this.say(describeNumbered(numbered, this.name));
    this.say(describeMerge(this.name, served, merged));
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
    let stat: BigIntStats;
    try {
      stat = await handle.stat({ bigint: true });
    } finally {
      await handle.close();
    }
    if (ifUnchanged && statKey(await lstatIfThereAsync(this.file)) !== this.fileKey) {
      await unlink(temp).catch(() => {});
      return false;
    }
    await rename(temp, this.file);
    await syncDirectory(path.dirname(this.file));
    this.fileKey = statKey(stat);
    this.fileSize = Number(stat.size);
    return true;
  }

  /**
   * Replaces the log, durably, with one holding the mark of the ids used and `keep`
   * (then the pets not in the file); only when no log write runs.
   */
  private async replaceLog(keep: StoredPet[], ids = this.idsUsedUpTo): Promise<void> {
    const temp = `${this.wal}.tmp`;
    const lines = keep.map((pet) => petToJson(pet) + "\n").join("");
    const text = markLine(ids) + lines;
    await clearLeftover(temp);
    const handle = await createFlushed(temp, [text]);
    await rename(temp, this.wal).catch(async (error: unknown) => {
      await handle.close();
      await unlink(temp).catch(() => {});
      throw error;
    });
    // The log's name is the new file's now: appends go there.
    await this.logFile?.handle.close().catch(() => {});
    this.logFile = { handle, size: Buffer.byteLength(text) };
    this.unflushed = keep;
    this.unflushedBytes = Buffer.byteLength(lines);
    this.idsUsedUpTo = ids;
    try {
      await syncDirectory(path.dirname(this.wal));
    } catch (error) {
      // Until the rename is durable, a crash could bring back the old log without the
      // pets appended from now on: stop acknowledging.
      this.broken = asStoreError(error, `Cannot sync the directory of ${this.wal}`);
      throw error;
    }
  }

  /** Runs `task` between log writes. */
  private exclusively<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.exclusive.push(() => task().then(resolve, reject));
      this.startWriting();
    });
  }

  private startWriting(): void {
    if (this.writing) return;
    this.writing = true;
    void this.writeUntilIdle();
  }

  private async writeUntilIdle(): Promise<void> {
    for (;;) {
      const task = this.exclusive.shift();
      if (task) await task();
      else if (this.waiting.length > 0) await this.writeBatch(this.waiting.splice(0));
      else break;
    }
    this.writing = false;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private async writeBatch(batch: Waiter[]): Promise<void> {
    const accepted: Array<{ waiter: Waiter; pet: Pet; json: string }> = [];
    let max = this.idsUsedUpTo;
    for (const waiter of batch) {
      try {
        const pet = petFromNew(waiter.newPet, idAfter(max));
        max = pet.id;
        accepted.push({ waiter, pet, json: petToJson(pet) });
      } catch (error) {
        waiter.reject(error);
      }
    }
    if (accepted.length === 0) return;
    const bytes = Buffer.from(accepted.map((a) => a.json + "\n").join(""));
    const log = this.logFile!;
    try {
      for (let done = 0; done < bytes.length;) {
        done += (await log.handle.write(bytes, done, bytes.length - done, log.size + done))
          .bytesWritten;
      }
      await log.handle.datasync();
    } catch (error) {
      const failure = await this.undoWrite(error);
      for (const { waiter } of accepted) waiter.reject(failure);
      return;
    }
    if (this.writeProblem !== undefined) {
      this.writeProblem = undefined;
      this.say(`Pets are stored in ${this.wal} again.`);
    }
    log.size += bytes.length;
    this.unflushedBytes += bytes.length;
    this.idsUsedUpTo = max;
    for (const { waiter, pet, json } of accepted) {
      this.index.append(pet);
      this.unflushed.push(pet);
      waiter.resolve({ pet, json });
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
    try {
      await this.logFile!.handle.truncate(this.logFile!.size);
      await this.logFile!.handle.datasync();
    } catch (cause) {
      this.broken = asStoreError(cause, `Cannot repair ${this.wal}`);
      this.say(
        `Cannot store pets in ${this.wal}: ${describeError(error)}, and cutting the failed ` +
          `write off failed too: ${describeError(this.broken)}. Taking no new pets until restarted.`,
      );
      return asStoreError(error, `Cannot store the pet in ${this.wal}`);
    }
    const problem = describeError(error);
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
