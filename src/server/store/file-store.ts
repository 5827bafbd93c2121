/**
 * The durable pet store behind `petstore serve <file>`: the memory store, with
 *
 * - a write-ahead log, `<file>.journal` (the name stores have always had on disk): its
 *   first line the mark of the ids used, then the acknowledged pets the file lacks. A
 *   create is appended and fdatasync'ed before it resolves; creates that arrive during
 *   a write go out together in the next (group commit). What must not overlap a write
 *   (replacing the log, adopting an edit, a reset) runs between writes, on the same
 *   chain (`exclusively`).
 * - the file, written whole (files/atomic-write.ts) when it lacks acknowledged pets,
 *   at a tick (`flushIntervalMs`) and at close; then a new log holding the pets
 *   acknowledged meanwhile. A file over REWRITE_FREE bytes is written once the log makes
 *   1/REWRITE_SHARE of it: the cost of a create stays flat as the store grows.
 * - edits of the file by someone else, looked at each tick: a change of its stat
 *   (inode, size, mtime) is read once it stayed the same from one tick to the next (a
 *   writer in place, such as `cat new.json > pets.json` or an editor saving in place,
 *   is still writing), and merged (edits.ts) when whole and valid. An empty, invalid
 *   or no longer regular file is refused, said once, and never written over until it
 *   changes: what a writer put there stays theirs.
 * - an opening that takes the file as an edit of the log's pets (a torn last line was
 *   never acknowledged), and a reset that writes the acknowledged pets into the file,
 *   empties the log, then renames the pets of the opening over the file: a crash
 *   leaves one side or the other, whole.
 */
import { constants, type BigIntStats } from "node:fs";
import { readlink, realpath, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import {
  clearLeftover,
  readCompanion,
  UnsafeFileError,
  writeFileAtomic,
} from "../../files/atomic-write.js";
import { nonRegularKind, whyNotRegular } from "../../files/file-kind.js";
import { acquireFileLock, describeRefusal, type FileLock } from "../../files/file-lock.js";
import { isMissing, lstatIfThere, openNoFollow, readNoFollow } from "../../files/file-safety.js";
import { petToJson, type NewPet } from "../../schema/pet.js";
import { mergeEdit } from "./edits.js";
import { parseLog, parsePetFile } from "./pet-file.js";
import { maxId, MemoryStore, petFromNew, StoreError } from "./memory.js";
import type { CreatedPet, StoredPet } from "./memory.js";
import { demoPets } from "../demo-pets.js";

/** What went wrong, in Node's words ("ENOSPC: no space left on device, write"); no final period. */
function describeError(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\.$/, "");
}

/** `error` as a StoreError: itself, or `io` (`what` failed, and why). */
function worded(error: unknown, what: string): StoreError {
  if (error instanceof StoreError) return error;
  return new StoreError("io", `${what}: ${describeError(error)}.`);
}

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
  let store: FileStore | undefined;
  try {
    store = new FileStore(await dataFilePath(name), name, say, options.flushIntervalMs ?? 1000);
    await store.open(options.seed);
    return store;
  } catch (error) {
    await store?.abandon();
    const bad = error instanceof StoreError && error.code === "invalid";
    if (!bad) throw error instanceof UnsafeFileError ? error : worded(error, `Cannot open ${name}`);
    const remedy = "Fix the file (it was left untouched) and start again.";
    throw new StoreError(error.code, `${error.message} ${remedy}`);
  }
}

/**
 * The absolute path the store works on: symlinks (of the file and of its directories)
 * resolved, so two names of one file share one lock. Refuses a data file that is not a
 * regular file, and a symlink that points nowhere.
 */
async function dataFilePath(given: string): Promise<string> {
  const absolute = path.resolve(given);
  const why = whyNotRegular(absolute);
  if (why !== undefined) {
    throw new UnsafeFileError(
      `Cannot serve ${given}: ${why}, not a regular file. Give a JSON file, or a path that does not exist yet.`,
    );
  }
  // A symlink there leads to a regular file or nowhere: followed; else the directory's are.
  const link = lstatIfThere(absolute)?.isSymbolicLink() === true;
  const directory = path.dirname(absolute);
  try {
    const real = await realpath(link ? absolute : directory);
    return link ? real : path.join(real, path.basename(absolute));
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  if (link) {
    throw new UnsafeFileError(
      `Cannot serve ${given}: it is a symlink to ${await readlink(absolute)}, which does not exist. ` +
        "serve follows a symlinked data file only to an existing file: create the file it " +
        "points to (an empty file is a new store), or give the real path.",
    );
  }
  const remedy = "Create it or choose another file.";
  throw new StoreError("io", `the directory ${directory} does not exist. ${remedy}`);
}

/** Takes `<file>.lock` (files/file-lock.ts): one serve per file. */
function lock(file: string, name: string, say: (line: string) => void): FileLock {
  const lockFile = `${file}.lock`;
  const attempt = acquireFileLock(lockFile, {
    onStale: (pid) =>
      say(
        pid === undefined
          ? `Removing the unreadable lock file ${lockFile}.`
          : pid === process.pid
            ? `Taking over ${lockFile}: it names this process (${pid}), which was given the pid of the stopped server that left it.`
            : `Taking over ${lockFile}: process ${pid}, which held it, is no longer running.`,
      ),
  });
  if (attempt.acquired) return attempt.lock;
  const { problem, hint } = describeRefusal(lockFile, attempt, {
    cannot: `Cannot serve ${name}`,
    ifIdle: "If no server is running",
    held: (pid) =>
      `${name} is already being served by ${pid === process.pid ? `this process (${pid})` : `process ${pid}`} ` +
      `(lock file ${lockFile}). Stop that server or serve another file`,
  });
  throw new StoreError("locked", `${problem}. ${hint}.`);
}

/** What tells one version of the file from another. */
function statKey(stat: BigIntStats | undefined): string {
  return stat === undefined ? "missing" : `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
}

/** The file's text for `pets`, in pieces so that a million pets never make one 70 MB string. */
export function* fileText(pets: readonly StoredPet[], chunkSize = 10_000): Generator<string> {
  for (let start = 0; start < pets.length; start += chunkSize) {
    const lines = pets.slice(start, start + chunkSize).map(petToJson);
    yield (start === 0 ? "[\n" : ",\n") + lines.join(",\n");
  }
  yield pets.length === 0 ? "[]\n" : "\n]\n";
}

interface Waiter {
  newPet: NewPet;
  resolve: (created: CreatedPet) => void;
  reject: (error: unknown) => void;
}

export class FileStore extends MemoryStore {
  private readonly wal: string;
  /** Acknowledged pets the file lacks, by id: those of the log. */
  private logged: StoredPet[] = [];
  private log: FileHandle | undefined;
  private logSize = 0;
  /** The file as this store last wrote or adopted it; undefined: deleted, written at the next tick. */
  private fileStat: BigIntStats | undefined;
  /** The version of the file seen at the last tick, still settling; and the one refused. */
  private settling: string | undefined;
  private refused: string | undefined;
  /** What opening made, removed by `abandon`: a data file ("missing", or "empty": 0 bytes), a log. */
  private created: { file?: "missing" | "empty"; log?: boolean } = {};
  private pending: Waiter[] = [];
  /** One task at a time on each: log writes and what must not overlap them; ticks and resets. */
  private chains: Record<"log" | "upkeep", Promise<unknown>> = {
    log: Promise.resolve(),
    upkeep: Promise.resolve(),
  };
  /** Set when the log can no longer be trusted to take writes. */
  private broken: StoreError | undefined;
  /** The last problem of a log write, and of a tick, until one succeeds (each said once). */
  private writeProblem: string | undefined;
  private tickProblem: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;
  private held: FileLock | undefined;

  constructor(
    private readonly file: string,
    private readonly name: string,
    private readonly say: (line: string) => void,
    private readonly flushIntervalMs: number,
  ) {
    super();
    this.wal = `${file}.journal`;
  }

  /**
   * Reads the file and the log, writes the file when it lacks pets of the log (or is
   * new), and starts a log of no pets. The pets of the log are acknowledged: the file
   * is taken as an edit of them (`mergeEdit`), so those it lacks are kept.
   */
  async open(seed: number | undefined): Promise<void> {
    const { file, name, wal } = this;
    this.held = lock(file, name, this.say);
    // A leftover of a write cut short (the file itself is whole); the log's, when it is replaced.
    await clearLeftover(`${file}.tmp`);
    const logged = readCompanion(wal);
    // Taken before the read: a change meanwhile is read again at the next tick.
    const stat = lstatIfThere(file);
    const text = stat && this.readFile();
    const log = parseLog(logged?.text ?? "");
    if (log.tornBytes > 0) {
      this.say(
        `Ignoring the last ${log.tornBytes} bytes of ${wal}: ` +
          "an entry cut short by a crash, never acknowledged.",
      );
    }
    // A new file (missing or 0 bytes) is a new store: the mark of an earlier one does not count.
    const fresh = !text;
    this.idsUsedUpTo = maxId(fresh ? undefined : log.idsUsedUpTo, log.pets.at(-1)?.id);
    const parsed = fresh ? { pets: [], unnumbered: [] } : parsePetFile(text, name);
    const merged = mergeEdit(log.pets, log.pets, parsed, this.idsUsedUpTo, name);
    if (typeof merged === "string") {
      const remedy = `Or remove ${wal} to drop the acknowledged pets it holds.`;
      throw new StoreError("invalid", `${name}: ${merged} ${remedy}`);
    }
    this.serve(merged.pets);
    this.logged = merged.logged;
    if (merged.gave !== undefined) this.say(merged.gave);
    if (fresh && seed && log.pets.length === 0) this.serve(demoPets(seed));
    if (!fresh && seed !== undefined) {
      this.say(`${name} already exists (${this.size} pets): --seed ${seed} is ignored.`);
    }
    this.opening = this.pets.slice();
    this.fileStat = stat;
    const recovered = this.logged.length;
    const created = fresh && recovered === 0 ? (stat ? "empty" : "missing") : undefined;
    this.created = { file: created, log: logged === undefined };
    if (fresh || recovered > 0 || merged.gave !== undefined) {
      await this.writeFile(this.pets);
      if (fresh) this.say(`Created ${name} with ${this.size} pets.`);
      if (recovered > 0) {
        this.say(`Recovered ${recovered} acknowledged pets from ${wal} into ${name}.`);
      }
    }
    await this.replaceLog([]);
    this.timer = setInterval(() => {
      void this.queue("upkeep", () => this.tick()).then(
        () => (this.tickProblem = undefined),
        (error: unknown) => {
          const message =
            `Cannot update ${this.name}: ${describeError(error)}. Acknowledged pets are safe ` +
            `in ${this.wal}; trying again.`;
          if (message !== this.tickProblem) this.say(message);
          this.tickProblem = message;
        },
      );
    }, this.flushIntervalMs).unref();
  }

  protected override add(newPet: NewPet): Promise<CreatedPet> {
    if (this.broken) {
      const why = describeError(this.broken);
      const message = `The pet was not stored: the fake stopped taking new pets after a failed write (${why}); restart it.`;
      return Promise.reject(new StoreError("not_stored", message));
    }
    return new Promise((resolve, reject) => {
      if (this.pending.push({ newPet, resolve, reject }) === 1) {
        void this.queue("log", () => this.writeBatch(this.pending.splice(0)));
      }
    });
  }

  override async reset(): Promise<void> {
    this.refuseIfClosed();
    const reset = async () => {
      // The log forgets its pets only once the file holds them.
      if (this.logged.length > 0) await this.writeFile(this.pets);
      await this.replaceLog([]);
      await this.writeFile(this.opening);
      this.serve(this.opening.slice());
    };
    return this.queue("upkeep", () => this.queue("log", reset)).catch((error: unknown) => {
      throw worded(error, `Cannot reset ${this.name}`);
    });
  }

  /** Finishes pending writes, brings the JSON file exactly up to date, releases the file. */
  override close(): Promise<void> {
    return (this.closing ??= this.stop(false));
  }

  /**
   * For a server that failed to start, instead of `close()`: closes the store and
   * removes what its opening created (a new data file that got no pet, a new log),
   * so a failed start leaves nothing behind. Only right after opening.
   */
  abandon(): Promise<void> {
    return (this.closing ??= this.stop(true));
  }

  /** Takes no more work, waits for the work taken, then closes or abandons. */
  private async stop(abandon: boolean): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.chains.upkeep;
    await this.chains.log;
    let failure: unknown;
    if (!abandon) await this.tick(true).catch((error: unknown) => (failure = error));
    await this.log?.close().catch(() => {});
    if (abandon) {
      try {
        const { file, log } = this.created;
        if (file && statKey(lstatIfThere(this.file)) === statKey(this.fileStat)) {
          await (file === "missing" ? unlink(this.file) : writeFileAtomic(this.file, []));
        }
        if (log) await unlink(this.wal);
      } catch {
        // A failed start still fails with its own error; what cannot be removed stays.
      }
    } else if (this.logged.length > 0) {
      this.say(
        `${this.logged.length} acknowledged pets are not in ${this.name} yet; they stay ` +
          `in ${this.wal} and are added when the file is next opened.`,
      );
    }
    this.held?.release();
    if (failure !== undefined) throw worded(failure, `Cannot update ${this.name}`);
  }

  private queue<T>(chain: "log" | "upkeep", task: () => Promise<T>): Promise<T> {
    const result = this.chains[chain].then(task);
    this.chains[chain] = result.catch(() => {});
    return result;
  }

  /**
   * Adopts a settled edit of the file if there is one, then writes the file when it is
   * due; `last`: before closing, a whole edit is taken without waiting, and the file is
   * written whatever its size.
   */
  private async tick(last = false): Promise<void> {
    if (!(await this.queue("log", () => this.pickUpEdit(last)))) return;
    const size = Number(this.fileStat?.size ?? 0);
    // Up to 1 MiB within a tick of each create; a larger file once the log makes a quarter of it.
    const due = last || size <= 1024 * 1024 || this.logSize * 4 >= size;
    if (this.fileStat !== undefined && !(due && this.logged.length > 0)) return;
    const flushed = this.logged.length;
    if (!(await this.writeFile(this.pets.slice(), true))) return;
    await this.queue("log", () => this.replaceLog(this.logged.slice(flushed)));
  }

  /**
   * Compares the file with the version the store knows, and adopts a settled, whole,
   * valid edit merged with the pets served. False when the file is not the store's to
   * write: still settling, or refused. `last`: the check before closing, which takes a
   * whole edit without waiting.
   */
  private async pickUpEdit(last: boolean): Promise<boolean> {
    const current = lstatIfThere(this.file);
    const key = statKey(current);
    if (key === statKey(this.fileStat)) {
      this.settling = undefined;
      return true;
    }
    if (key === this.refused || (!last && key !== this.settling)) {
      this.settling = key;
      return false;
    }
    if (current === undefined) {
      this.say(`${this.name} was deleted; writing it again with the ${this.size} pets served.`);
      this.fileStat = undefined;
      return true;
    }
    const kind = nonRegularKind(current);
    if (kind !== undefined)
      return this.refuse(key, `${this.name} is now ${kind}, not a regular file.`);
    if (current.size === 0n) {
      return this.refuse(
        key,
        "it is empty: a file being written starts so, and an empty file is never taken as an edit.",
      );
    }
    let merged: ReturnType<typeof mergeEdit>;
    try {
      const text = this.readFile();
      // Changed again while being read: still being written.
      if (text === undefined || statKey(lstatIfThere(this.file)) !== key) return false;
      const parsed = parsePetFile(text, this.name);
      merged = mergeEdit(this.pets, this.logged, parsed, this.idsUsedUpTo, this.name);
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      return this.refuse(key, `the edit cannot be used: ${error.message}`);
    }
    if (typeof merged === "string") return this.refuse(key, merged);
    const before = this.size;
    // Kept pets that had reached the file are only in memory now: into the log with them
    // (and with the new mark of the ids used) before serving.
    await this.replaceLog(merged.logged, maxId(this.idsUsedUpTo, merged.pets.at(-1)?.id));
    this.serve(merged.pets);
    if (merged.gave !== undefined) this.say(merged.gave);
    this.fileStat = current;
    // The ids given to pets without one go into the file now, before it is read again.
    if (merged.gave !== undefined) await this.writeFile(this.pets.slice(), true);
    this.say(
      `Picked up an edit of ${this.name}: serving ${this.size} pets (${before} before)${merged.said}`,
    );
    return true;
  }

  /** Refuses the version `key` of the file because of `why`: said once, not looked at until it changes. */
  private refuse(key: string, why: string): false {
    this.refused = key;
    this.say(
      `${this.name} was edited, but ${why} Still serving the ${this.size} pets from before; ` +
        `${this.name} will not be written until it changes, and acknowledged pets stay safe ` +
        `in ${this.wal}.`,
    );
    return false;
  }

  /** The data file's text, undefined when missing; never read through a link nor a FIFO. */
  private readFile(): string | undefined {
    try {
      return readNoFollow(this.file, (opened) => {
        const kind = nonRegularKind(opened);
        if (kind) throw new UnsafeFileError(`${this.name} is now ${kind}, not a regular file.`);
      });
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /** Writes the file whole; `ifUnchanged`: not over an edit that landed meanwhile (looked at next). */
  private async writeFile(pets: readonly StoredPet[], ifUnchanged = false): Promise<boolean> {
    const known = statKey(this.fileStat);
    const stat = await writeFileAtomic(this.file, fileText(pets), {
      beforeRename: () => !ifUnchanged || statKey(lstatIfThere(this.file)) === known,
    });
    if (stat !== undefined) this.fileStat = stat;
    return stat !== undefined;
  }

  /**
   * Replaces the log, durably, with `keep` (pets the file lacks) after the mark of the
   * largest id the store ever used (given to a created pet, or held by a pet it served),
   * so that no id is given out twice even once the pet that had it is gone from the file.
   */
  private async replaceLog(keep: StoredPet[], ids = this.idsUsedUpTo): Promise<void> {
    const mark = ids === undefined ? "" : `{"idsUsedUpTo":${ids}}\n`;
    const text = mark + keep.map((pet) => petToJson(pet) + "\n").join("");
    // Windows renames nothing over an open file. Should the rename fail, the next create
    // finds the log closed and stops the store (undoWrite).
    await writeFileAtomic(this.wal, [text], { beforeRename: () => this.log?.close() });
    this.log = await openNoFollow(this.wal, constants.O_WRONLY | constants.O_APPEND);
    this.logSize = Buffer.byteLength(text);
    this.logged = keep;
    this.idsUsedUpTo = ids;
  }

  private async writeBatch(batch: Waiter[]): Promise<void> {
    const accepted: Array<{ waiter: Waiter; created: CreatedPet }> = [];
    let max = this.idsUsedUpTo;
    for (const waiter of batch) {
      try {
        const pet = petFromNew(waiter.newPet, max);
        max = pet.id;
        accepted.push({ waiter, created: { pet, json: petToJson(pet) } });
      } catch (error) {
        waiter.reject(error);
      }
    }
    const bytes = Buffer.from(accepted.map((a) => a.created.json + "\n").join(""));
    try {
      await this.log!.writeFile(bytes);
      await this.log!.datasync();
    } catch (error) {
      const failure = await this.undoWrite(error);
      for (const { waiter } of accepted) waiter.reject(failure);
      return;
    }
    if (this.writeProblem !== undefined) this.say(`Pets are stored in ${this.wal} again.`);
    this.writeProblem = undefined;
    this.logSize += bytes.length;
    for (const { waiter, created } of accepted) {
      this.pets.push(created.pet);
      this.logged.push(created.pet);
      waiter.resolve(created);
    }
    // Before any of the 201s: a resolve runs its callbacks only after this task.
    this.serve(this.pets);
  }

  /**
   * After a failed write: cuts off whatever part of the batch landed, durably, so the
   * batch is certainly not stored (and the next one follows whole lines). The rejection
   * for the batch: `not_stored` once undone; `io` (the outcome is unknown: the bytes may
   * be replayed at the next start) when the undo fails too, which also stops the store
   * from taking pets.
   */
  private async undoWrite(error: unknown): Promise<StoreError> {
    const problem = describeError(error);
    try {
      await this.log!.truncate(this.logSize);
      await this.log!.datasync();
    } catch (cause) {
      this.broken = worded(cause, `Cannot repair ${this.wal}`);
      this.say(
        `Cannot store pets in ${this.wal}: ${problem}, and cutting the failed write off ` +
          `failed too: ${describeError(this.broken)}. Taking no new pets until restarted.`,
      );
      return worded(error, `Cannot store the pet in ${this.wal}`);
    }
    if (problem !== this.writeProblem) {
      this.say(
        `Cannot store pets in ${this.wal}: ${problem}. Answering 507 insufficient_storage ` +
          "(nothing stored) until a write succeeds.",
      );
    }
    this.writeProblem = problem;
    const remedy = "Send it again once the fake's disk has room.";
    return new StoreError("not_stored", `The pet was not stored: ${problem}. ${remedy}`);
  }
}
