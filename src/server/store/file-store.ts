/**
 * The durable pet store behind `petstore serve <file>`: it opens the file (symlinks
 * and devices: file-kinds.ts), takes its lock, recovers (recovery.ts), serves reads
 * from memory and creates through the write-ahead log (wal.ts: group commit), and about
 * once a second (`flushIntervalMs`) adopts an edit of the file made by someone else
 * (edit-watching.ts) and then compacts the acknowledged pets into it (compaction.ts).
 * A reset (reset.ts) goes back to the pets of the opening; it and the maintenance
 * ticks run one at a time.
 * `close()` finishes the writes and compacts a last time; the write-ahead log is left
 * holding the mark of the ids used (and the pets it could not compact, for the
 * next start). `abandon()` closes a store whose server failed to start, removing
 * what its opening created.
 */
import type { NewPet } from "../../schema/pet.js";
import { compact, needsCompaction } from "./compaction.js";
import { isMissing } from "./durable.js";
import { EditWatcher } from "./edit-watching.js";
import { resolveDataFile } from "./file-kinds.js";
import { WriteAheadLog } from "./wal.js";
import { acquireLock } from "./lock.js";
import { newPetProblem, type StoredPet } from "./pet-index.js";
import { recover, removeCreated, type Created, type Recovered } from "./recovery.js";
import { resetFile } from "./reset.js";
import { storePaths, type StorePaths, type StoreState } from "./store-state.js";
import { asStoreError, describeError } from "./store-errors.js";
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

export interface FileStore extends PetStore {
  /**
   * For a server that failed to start, instead of `close()`: closes the store and
   * removes what its opening created (a new data file that got no pet, a new
   * write-ahead log), so a failed start leaves nothing behind. Only right after opening.
   */
  abandon(): Promise<void>;
}

export async function openFileStore(options: FileStoreOptions): Promise<FileStore> {
  let file: string;
  try {
    file = await resolveDataFile(options.file);
  } catch (error) {
    throw asStoreError(error, `Cannot serve ${options.file}`);
  }
  const paths = storePaths(file, options.file);
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
    return new OpenFileStore(
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

class OpenFileStore implements FileStore {
  private readonly state: StoreState;
  private readonly created: Created;
  private readonly wal: WriteAheadLog;
  private readonly edits: EditWatcher;
  /** The pets served right after opening, for `reset`. */
  private readonly opening: readonly StoredPet[];
  /** Maintenance ticks and resets, one at a time. */
  private serial: Promise<unknown> = Promise.resolve();
  private lastProblem: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private maintenance: Promise<void> | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly paths: StorePaths,
    private readonly log: (line: string) => void,
    private readonly flushIntervalMs: number,
    private readonly release: () => Promise<void>,
    recovered: Recovered,
  ) {
    this.state = recovered.state;
    this.created = recovered.created;
    this.opening = this.state.index.pets.slice();
    const { handle, size } = recovered.wal;
    this.wal = new WriteAheadLog(handle, size, paths, this.state, log);
    this.edits = new EditWatcher(paths, this.state, this.wal, log);
    this.schedule();
  }

  get size(): number {
    return this.state.index.size;
  }

  get revision(): number {
    return this.state.index.revision;
  }

  listJson(options: ListOptions): string {
    return this.state.index.list(options);
  }

  getJson(id: bigint): string | undefined {
    return this.state.index.get(id);
  }

  create(newPet: NewPet): Promise<CreatedPet> {
    const problem = newPetProblem(newPet);
    if (problem) return Promise.reject(problem);
    if (this.closed) {
      return Promise.reject(new StoreError("io", `The store of ${this.paths.name} is closed.`));
    }
    return this.wal.append(newPet);
  }

  reset(): Promise<void> {
    if (this.closed) {
      return Promise.reject(new StoreError("io", `The store of ${this.paths.name} is closed.`));
    }
    return this.serially(() =>
      resetFile(this.paths, this.state, this.wal, this.opening).catch((error: unknown) => {
        throw asStoreError(error, `Cannot reset ${this.paths.name}`);
      }),
    );
  }

  close(): Promise<void> {
    return (this.closing ??= this.shutDown());
  }

  private serially<T>(task: () => Promise<T>): Promise<T> {
    const result = this.serial.then(task);
    this.serial = result.catch(() => {});
    return result;
  }

  async abandon(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.maintenance;
    await this.serial;
    await this.wal.idle();
    await this.wal.close();
    await removeCreated(this.paths, this.created, this.state.version);
    await this.release();
  }

  private async shutDown(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.maintenance;
    await this.serial;
    await this.wal.idle();
    let failure: unknown;
    try {
      await this.update(true);
    } catch (error) {
      failure = error;
    }
    await this.wal.close();
    const { unflushed } = this.state;
    if (unflushed.length > 0) {
      this.log(
        `${unflushed.length} acknowledged pets are not in ${this.paths.name} yet; they stay ` +
          `in ${this.paths.wal} and are added when the file is next opened.`,
      );
    }
    await this.release();
    if (failure !== undefined) throw asStoreError(failure, `Cannot update ${this.paths.name}`);
  }

  // Maintenance: one tick at a time, every flushIntervalMs.

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.maintenance = this.serially(() => this.update())
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
      `in ${this.paths.wal}; trying again.`;
    if (message !== this.lastProblem) this.log(message);
    this.lastProblem = message;
  }

  /**
   * Adopts a settled edit of the file if there is one, then brings the file up to
   * date; `last`: before closing, a complete edit is taken without waiting.
   */
  private async update(last = false): Promise<void> {
    if (!(await this.edits.check(last))) return;
    if (needsCompaction(this.state)) await compact(this.paths.file, this.state, this.wal);
  }
}
