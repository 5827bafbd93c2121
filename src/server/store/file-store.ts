/**
 * The durable pet store behind `petstore serve <file>`.
 *
 * - Every create is appended to `<file>.journal` and fdatasync'ed before it
 *   resolves. Creates that arrive while a sync is in flight wait and go out together
 *   in the next write and sync (group commit), so a sync is shared by many creates.
 * - About once a second (`flushIntervalMs`) the pets in the journal are compacted
 *   into the JSON file: copy the file (a kernel copy), write the new pets over its
 *   closing bracket, fsync, rename over the file, fsync the directory; then the
 *   journal is cut down to the pets that arrived meanwhile. The event loop only
 *   formats the new pets, so write cost does not grow with the store.
 * - The same tick notices a file edited by someone else (inode, size, mtime) and
 *   adopts it when it is valid, re-applying acknowledged pets it lacks; otherwise it
 *   keeps serving what it had and does not write the file until it is fixed.
 * - A journal write that fails (a full disk...) is cut off again and synced before
 *   its creates are rejected as `not_stored`: they are certainly not stored.
 * - Opening recovers: read the file, replay the journal (a torn last line was never
 *   acknowledged), compact, start an empty journal. `close()` compacts and removes it.
 *   What may be opened, and how (symlinks, devices), is in file-kinds.ts.
 */
import type { BigIntStats } from "node:fs";
import { rename, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import type { NewPet, Pet } from "../../schema/pet.js";
import { ignoreMissing, isMissing, syncDirectory, writeAllAt } from "./durable.js";
import { parseJournal, parsePetFile, type PetFile } from "./file-format.js";
import { clearLeftover, createExclusive, openJournal, resolveDataFile } from "./file-kinds.js";
import {
  appendPoint,
  install,
  readVersion,
  statIfExists,
  versionKey,
  writeTemp,
  type FileVersion,
} from "./file-versions.js";
import { acquireLock } from "./lock.js";
import {
  PetIndex,
  idAfter,
  newPetProblem,
  petFromNew,
  sortPets,
  toStoredPet,
  type StoredPet,
} from "./pet-index.js";
import { demoPets } from "./seed.js";
import { asStoreError, describeError, notStored } from "./store-errors.js";
import { StoreError, type CreatedPet, type ListOptions, type PetStore } from "./types.js";

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

const DEFAULT_FLUSH_INTERVAL_MS = 1000;

interface Waiter {
  newPet: NewPet;
  resolve: (created: CreatedPet) => void;
  reject: (error: unknown) => void;
}

interface Paths {
  file: string;
  /** How messages call the file: as the person gave it. */
  name: string;
  directory: string;
  journal: string;
}

export async function openFileStore(options: FileStoreOptions): Promise<PetStore> {
  let file: string;
  try {
    file = await resolveDataFile(options.file);
  } catch (error) {
    throw asStoreError(error, `Cannot serve ${options.file}`);
  }
  const paths: Paths = {
    file,
    name: options.file,
    directory: path.dirname(file),
    journal: `${file}.journal`,
  };
  const log = options.log ?? (() => {});
  let release: () => Promise<void>;
  try {
    release = await acquireLock(file, paths.name, log);
  } catch (error) {
    if (isMissing(error)) {
      throw new StoreError(
        "io",
        `Cannot serve ${paths.name}: the directory ${paths.directory} does not exist. Create it or choose another file.`,
      );
    }
    throw asStoreError(error, `Cannot lock ${paths.name}`);
  }
  try {
    const recovered = await recover(paths, options.seed, log);
    return new FileStore(
      paths,
      log,
      options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS,
      release,
      recovered,
    );
  } catch (error) {
    await release().catch(() => {});
    if (error instanceof StoreError && error.code === "unsafe_file") {
      throw new StoreError(error.code, `Cannot serve ${paths.name}: ${error.message}`);
    }
    if (error instanceof StoreError && (error.code === "corrupt" || error.code === "invalid")) {
      throw new StoreError(
        error.code,
        `${error.message} Fix the file (it was left untouched) and start again.`,
      );
    }
    throw asStoreError(error, `Cannot open ${paths.name}`);
  }
}

interface Recovered {
  index: PetIndex;
  version: FileVersion;
  journal: FileHandle;
}

async function recover(
  paths: Paths,
  seed: number | undefined,
  log: (line: string) => void,
): Promise<Recovered> {
  // Leftovers of a write cut short; the file and the journal themselves are whole.
  await clearLeftover(`${paths.file}.tmp`);
  await clearLeftover(`${paths.journal}.tmp`);

  const handle = await openJournal(paths.journal);
  try {
    const recovered = await recoverInto(handle, paths, seed, log);
    await handle.truncate(0);
    await handle.sync();
    await syncDirectory(paths.directory);
    return { ...recovered, journal: handle };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Reads the file and the journal (`journalHandle`), and brings the file up to date. */
async function recoverInto(
  journalHandle: FileHandle,
  paths: Paths,
  seed: number | undefined,
  log: (line: string) => void,
): Promise<Omit<Recovered, "journal">> {
  const existing = await readVersion(paths.file, paths.name);
  const journal = parseJournal(await journalHandle.readFile());

  const fresh = existing === undefined || existing.bytes.length === 0;
  let pets: StoredPet[];
  let version: FileVersion;
  if (fresh) {
    const seeding = seed !== undefined && seed > 0 && journal.pets.length === 0;
    pets = seeding ? demoPets(seed).map(toStoredPet) : [];
    version = { stat: undefined, appendOffset: undefined, hasElements: false };
  } else {
    const parsed = parsePetFile(existing.bytes, paths.name);
    pets = parsed.pets;
    version = { stat: existing.stat, ...appendPoint(parsed) };
    if (seed !== undefined) {
      log(`${paths.name} already exists (${pets.length} pets): --seed ${seed} is ignored.`);
    }
  }

  if (journal.tornBytes > 0) {
    log(
      `Ignoring the last ${journal.tornBytes} bytes of ${paths.journal}: ` +
        "an entry cut short by a crash, never acknowledged.",
    );
  }
  const missing = journalPetsNotIn(new PetIndex(pets), journal.pets, paths);
  if (missing.length > 0) {
    pets = pets.concat(missing);
    sortPets(pets);
  }
  const index = new PetIndex(pets);

  if (fresh || missing.length > 0) {
    const next = await writeTemp(
      paths.file,
      version,
      version.appendOffset === undefined ? { whole: pets } : { append: missing },
    );
    await install(paths.file);
    version = next;
    if (fresh) log(`Created ${paths.name} with ${pets.length} pets.`);
    if (missing.length > 0) {
      log(
        `Recovered ${missing.length} acknowledged pets from ${paths.journal} into ${paths.name}.`,
      );
    }
  }

  return { index, version };
}

/** The journal's pets that `index` lacks; refuses one whose id it holds as another pet. */
function journalPetsNotIn(index: PetIndex, journal: StoredPet[], paths: Paths): StoredPet[] {
  const missing: StoredPet[] = [];
  const seen = new Map<bigint, string>();
  for (const pet of journal) {
    const there = index.get(pet.id) ?? seen.get(pet.id);
    if (there === pet.json) continue;
    if (there !== undefined) {
      throw new StoreError(
        "invalid",
        `${paths.name} holds ${there}, but ${paths.journal} holds the acknowledged pet ${pet.json} ` +
          `with the same id. Give the pet in ${paths.name} another id, or remove ${paths.journal} ` +
          "to drop the acknowledged pets it holds.",
      );
    }
    seen.set(pet.id, pet.json);
    missing.push(pet);
  }
  return missing;
}

class FileStore implements PetStore {
  private index: PetIndex;
  private version: FileVersion;
  private journal: FileHandle;
  private journalSize = 0;
  /** Acknowledged (in the journal) but not yet in the JSON file; in id order. */
  private unflushed: StoredPet[] = [];
  /** Creates waiting for the next journal write. */
  private waiting: Waiter[] = [];
  /** Work that must not overlap a journal write: adopting an edit, trimming the journal. */
  private exclusive: Array<() => Promise<void>> = [];
  private writing = false;
  private idleWaiters: Array<() => void> = [];
  /** The version of the file (see `versionKey`) that was refused; it is not written over. */
  private refusedVersion: string | undefined;
  private lastProblem: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private maintenance: Promise<void> | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;
  /** Set when the journal can no longer be trusted to take writes. */
  private broken: StoreError | undefined;
  /** Why the last journal write failed, until one succeeds (logged once). */
  private writeProblem: string | undefined;

  constructor(
    private readonly paths: Paths,
    private readonly log: (line: string) => void,
    private readonly flushIntervalMs: number,
    private readonly release: () => Promise<void>,
    recovered: Recovered,
  ) {
    this.index = recovered.index;
    this.version = recovered.version;
    this.journal = recovered.journal;
    this.schedule();
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
    return this.index.get(id);
  }

  create(newPet: NewPet): Promise<CreatedPet> {
    const problem = newPetProblem(newPet);
    if (problem) return Promise.reject(problem);
    if (this.closed) {
      return Promise.reject(new StoreError("io", `The store of ${this.paths.name} is closed.`));
    }
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

  close(): Promise<void> {
    return (this.closing ??= this.shutDown());
  }

  private async shutDown(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.maintenance;
    await this.idle();
    let failure: unknown;
    try {
      await this.update();
    } catch (error) {
      failure = error;
    }
    await this.journal.close().catch(() => {});
    if (failure === undefined && this.unflushed.length === 0) {
      await unlink(this.paths.journal).catch(ignoreMissing);
      await syncDirectory(this.paths.directory).catch(() => {});
    } else if (this.unflushed.length > 0) {
      this.log(
        `${this.unflushed.length} acknowledged pets are not in ${this.paths.name} yet; they stay ` +
          `in ${this.paths.journal} and are added when the file is next opened.`,
      );
    }
    await this.release();
    if (failure !== undefined) throw asStoreError(failure, `Cannot update ${this.paths.name}`);
  }

  // The journal writer: one write and sync at a time, each carrying every create
  // that arrived while the previous one was in flight.

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

  private idle(): Promise<void> {
    return this.writing
      ? new Promise((resolve) => this.idleWaiters.push(resolve))
      : Promise.resolve();
  }

  /** Runs `task` between journal writes. */
  private exclusively<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.exclusive.push(() => task().then(resolve, reject));
      this.startWriting();
    });
  }

  private async writeBatch(batch: Waiter[]): Promise<void> {
    const accepted: Array<{ waiter: Waiter; pet: Pet; stored: StoredPet }> = [];
    let max = this.index.maxId;
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
    const bytes = Buffer.from(accepted.map((a) => a.stored.json + "\n").join(""));
    try {
      await writeAllAt(this.journal, bytes, this.journalSize);
      await this.journal.datasync();
    } catch (error) {
      const failure = await this.undoWrite(error);
      for (const a of accepted) a.waiter.reject(failure);
      return;
    }
    if (this.writeProblem !== undefined) {
      this.writeProblem = undefined;
      this.log(`Pets are stored in ${this.paths.journal} again.`);
    }
    this.journalSize += bytes.length;
    for (const { waiter, pet, stored } of accepted) {
      this.index.append(stored);
      this.unflushed.push(stored);
      waiter.resolve({ pet, json: stored.json });
    }
  }

  /**
   * After a failed journal write: cuts off whatever part of the batch landed, durably,
   * so the batch is certainly not stored (and the next one follows whole lines). The
   * rejection for the batch: `not_stored` once undone; `io` (the outcome is unknown:
   * the bytes may be replayed at the next start) when the undo fails too, which also
   * stops the store from taking pets.
   */
  private async undoWrite(error: unknown): Promise<StoreError> {
    const { journal } = this.paths;
    try {
      await this.journal.truncate(this.journalSize);
      await this.journal.datasync();
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

  // Maintenance: one tick at a time, every flushIntervalMs.

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.maintenance = this.update()
        .then(
          () => {
            this.lastProblem = undefined;
          },
          (error: unknown) => this.report(error),
        )
        .finally(() => {
          this.maintenance = undefined;
          if (!this.closed) this.schedule();
        });
    }, this.flushIntervalMs);
    this.timer.unref();
  }

  private report(error: unknown): void {
    const message =
      `Cannot update ${this.paths.name}: ${describeError(error)}. Acknowledged pets are safe ` +
      `in ${this.paths.journal}; trying again.`;
    if (message !== this.lastProblem) this.log(message);
    this.lastProblem = message;
  }

  /** Adopts an edit of the file if there is one, then brings the file up to date. */
  private async update(): Promise<void> {
    const current = await statIfExists(this.paths.file);
    if (versionKey(current) !== versionKey(this.version.stat)) {
      if (!(await this.adoptEdit(current))) return;
    }
    if (this.unflushed.length > 0 || this.version.stat === undefined) await this.compact();
  }

  /** Whether the store now matches the file (adopted) or the file must still be written. */
  private async adoptEdit(current: BigIntStats | undefined): Promise<boolean> {
    const { name, journal } = this.paths;
    if (current === undefined) {
      this.log(`${name} was deleted; writing it again with the ${this.index.size} pets served.`);
      this.version = { stat: undefined, appendOffset: undefined, hasElements: false };
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
        `${error.message} Not reading or writing it; still serving the ${this.index.size} pets from ` +
          `before, and acknowledged pets stay safe in ${journal}.`,
      );
      return false;
    }
    if (read === undefined) return false;
    const refuse = (why: string): false => {
      this.refusedVersion = versionKey(read.stat);
      this.log(
        `${name} was edited, but ${why} Still serving the ${this.index.size} pets from before; ` +
          `${name} will not be written until it is fixed, and acknowledged pets stay safe in ${journal}.`,
      );
      return false;
    };
    let parsed: PetFile;
    if (read.bytes.length === 0) {
      parsed = { pets: [], appendOffset: 0, hasElements: false };
    } else {
      try {
        parsed = parsePetFile(read.bytes, name);
      } catch (error) {
        if (!(error instanceof StoreError)) throw error;
        return refuse(`the edit cannot be used: ${error.message}`);
      }
    }
    return this.exclusively(async () => {
      const edited = new PetIndex(parsed.pets);
      const missing: StoredPet[] = [];
      for (const pet of this.unflushed) {
        const there = edited.get(pet.id);
        if (there === undefined) missing.push(pet);
        else if (there !== pet.json) {
          return refuse(
            `it holds ${there} where the pet ${pet.json} was acknowledged with the same id ` +
              "and is not in the file yet. Give the edited pet another id.",
          );
        }
      }
      const before = this.index.size;
      let pets = parsed.pets;
      if (missing.length > 0) {
        pets = pets.concat(missing);
        sortPets(pets);
      }
      this.index = new PetIndex(pets);
      this.unflushed = missing;
      this.refusedVersion = undefined;
      this.version = {
        stat: read.stat,
        // A 0-byte file has no bracket to append before: write it whole.
        ...(read.bytes.length === 0
          ? { appendOffset: undefined, hasElements: false }
          : appendPoint(parsed)),
      };
      this.log(
        `Picked up an edit of ${name}: serving ${this.index.size} pets (${before} before)` +
          (missing.length > 0
            ? `, with ${missing.length} acknowledged pets the edit lacked, which are added to it.`
            : "."),
      );
      return true;
    });
  }

  private async compact(): Promise<void> {
    const count = this.unflushed.length;
    const base = this.version;
    const next = await writeTemp(
      this.paths.file,
      base,
      base.appendOffset !== undefined && count > 0
        ? { append: this.unflushed.slice(0, count) }
        : { whole: this.index.pets.slice() },
    );
    // An edit that landed while the copy was being written wins: it is adopted next time.
    if (versionKey(await statIfExists(this.paths.file)) !== versionKey(base.stat)) {
      await unlink(`${this.paths.file}.tmp`).catch(ignoreMissing);
      return;
    }
    await install(this.paths.file);
    this.version = next;
    this.unflushed.splice(0, count);
    await this.exclusively(() => this.trimJournal());
  }

  /** Cuts the journal down to the pets not in the file yet. */
  private async trimJournal(): Promise<void> {
    const keep = this.unflushed;
    if (keep.length === 0) {
      await this.journal.truncate(0);
      await this.journal.datasync();
      this.journalSize = 0;
      return;
    }
    const temp = `${this.paths.journal}.tmp`;
    const bytes = Buffer.from(keep.map((p) => p.json + "\n").join(""));
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
    const old = this.journal;
    this.journal = handle;
    this.journalSize = bytes.length;
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
