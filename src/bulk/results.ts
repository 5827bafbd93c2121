/**
 * The results file: NDJSON, a `{"run":...}` line per run, then a `sending` line
 * before each POST and the row's outcome (`added`, `invalid`, `failed`,
 * `unknown`) as it is known; a row's last line wins. Earlier runs are read by
 * prior-runs.ts for `--resume`.
 *
 * Lines are written by this process straight to the file, the lines of one turn
 * of the event loop in one write, before the requests of that turn leave (see
 * written): a run that is killed, even with -9, has recorded all it learned,
 * and a row whose last line is `sending` may have been added (it is `unknown`).
 *
 * Room on disk is claimed before a row's request leaves, by writing filler where
 * lines will go (Node has no fallocate): room for the lines of every row that may
 * be in flight (ROW_BYTES each). When the disk is full, the claim fails and the
 * row is not sent, while the rows already sent write their outcomes into room that
 * is theirs. Lines are therefore written at the end of the lines, not appended
 * (no O_APPEND). The filler is spaces with no line break: a run killed with -9
 * leaves it after its last line, where it reads as a last line cut short, which
 * `--resume` drops and cuts, as it does a line a power loss cut. A run that ends
 * cuts it itself. Failing to write is exit 9.
 *
 * The file is synced to disk (fdatasync) every SYNC_EVERY_MS and at the end, not
 * before each request: a sync on the path of every request cost a large share of
 * the throughput (docs/benchmarks.md). After a power loss or an operating-system
 * crash (not a killed process) the lines of that last fraction of a second may
 * be missing, and a resume could send those rows again.
 */
import {
  closeSync,
  constants,
  fdatasync,
  fstatSync,
  ftruncateSync,
  openSync,
  statSync,
  writeSync,
} from "node:fs";
import { promisify } from "node:util";
import { EXIT, PetstoreError, UsageError } from "../errors.js";
import { openNoFollowSync } from "../files/file-safety.js";
import { stringifyJson } from "../schema/json.js";
import { lockResults } from "./results-lock.js";

export const OUTCOMES = ["sending", "added", "invalid", "failed", "unknown"] as const;
export type Outcome = (typeof OUTCOMES)[number];

export interface RowProblem {
  /** The field at fault; absent when the record could not be read at all. */
  field?: string;
  message: string;
}

export interface ErrorSummary {
  message: string;
  /** The HTTP status of the answer, when there was one. */
  status?: number;
  /** The `code` of the service's Error body, when it had one. */
  code?: string;
}

export interface ResultLine {
  row: number;
  line: number;
  outcome: Outcome;
  digest?: string;
  id?: bigint;
  problems?: RowProblem[];
  error?: ErrorSummary;
}

export interface RunHeader {
  input: string;
  format: string;
  startedAt: string;
  resumed?: string;
}

/**
 * The most characters of a service's message a results line keeps (and of its
 * error code, which is meant to be a short word): a service may send a
 * message of a megabyte, and a file of such lines would be a hundred times the
 * input. The rest is cut, and the line says how much.
 */
export const MAX_STORED_MESSAGE = 500;
export const MAX_STORED_CODE = 100;

/** `text`, or its first `max` characters (a surrogate pair kept whole) and how many were cut. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, end)}… (${text.length - end} more characters)`;
}

/**
 * The most bytes the lines of a row sent take (its `sending` line and its
 * outcome): an error whose message and code are as long as they are kept, with
 * what cutText adds, every character written as a 6-byte escape, and the rest.
 */
const ROW_BYTES = 512 + 6 * (MAX_STORED_MESSAGE + MAX_STORED_CODE + 2 * 40);

const datasync = promisify(fdatasync);

/** Read and write, created when missing (not O_APPEND: lines go before the room claimed). */
const OPEN = constants.O_RDWR | constants.O_CREAT;
/** The same, but failing on any existing file, a symbolic link (even dangling) included (with openNoFollowSync). */
const CREATE_NEW = OPEN | constants.O_EXCL;

/** How often written lines are synced to disk while a run goes on. */
const SYNC_EVERY_MS = 250;

/** Room is claimed this many bytes ahead at a time (or what is needed, when the disk is nearly full). */
const ROOM_STEP = 64 * 1024;
const FILLER = Buffer.alloc(ROOM_STEP, 0x20);

export interface OpenResults {
  path: string;
  header: RunHeader;
  /** At most this many rows in flight: the room kept for their lines. */
  concurrency: number;
  /**
   * Continue the file (`--resume`) as prior-runs.ts read it: its size then, and the
   * bytes up to its last complete line; a torn last line is cut, a complete line never.
   */
  resume?: { size: number; validBytes: number; lastLineEnded: boolean };
  /**
   * Create the file, which must not exist: never open an existing file or follow a
   * symbolic link in its place (the results file a long run gets without asking).
   */
  exclusive?: boolean;
}

const NOT_A_FILE_HINT = "choose a file for --results (a new one, or an empty one)";

/** A results file is never overwritten or mixed with another run's: that is what --resume is for. */
function checkResultsPath(path: string): void {
  const info = statSync(path, { throwIfNoEntry: false });
  if (info === undefined) return;
  // Appending to a device or a FIFO would write where no results file is (or block).
  if (!info.isFile()) {
    throw new UsageError(`the results file ${path} is not a regular file`, NOT_A_FILE_HINT);
  }
  if (info.size > 0) {
    throw new UsageError(
      `the results file ${path} already exists`,
      `to continue that run, use --resume ${path}; otherwise choose another --results file`,
    );
  }
}

/** Why the results file cannot be written, and what became of the run (exit 9). */
function unwritable(path: string, error: unknown, outcome: string): PetstoreError {
  const code = (error as NodeJS.ErrnoException).code ?? String(error);
  const why = code === "ENOSPC" ? "the disk is full (ENOSPC)" : code;
  return new PetstoreError(
    `the results file ${path} cannot be written: ${why}; ${outcome}`,
    EXIT.RESULTS_UNWRITABLE,
    "make room on that disk",
  );
}

export class ResultsWriter {
  /** Where the lines end: the next line is written here. */
  private end: number;
  /** The file's size: the lines, then room claimed and not written yet. */
  private size: number;
  private syncedEnd: number;
  private syncing = Promise.resolve();
  private closed = false;
  /** Lines recorded but not yet written: written once per turn of the event loop (see written). */
  private pending = "";
  /** The UTF-8 length of `pending`, kept rather than measured at each claim. */
  private pendingBytes = 0;
  private turn: Promise<boolean> | undefined;
  /** A write of lines failed: nothing more may be sent. */
  private linesLost = false;
  private readonly timer: ReturnType<typeof setInterval>;
  /** Why the file could not be written, once it could not. */
  failure: PetstoreError | undefined;
  private failedBy: unknown;
  /** Called once, the first time the file cannot be written (the run stops sending). */
  onFailure: ((error: PetstoreError) => void) | undefined;

  private constructor(
    /** Where the lines go. */
    readonly path: string,
    private readonly fd: number,
    private readonly unlock: () => void,
    /** The room kept for the rows in flight. */
    private readonly room: number,
  ) {
    this.end = this.size = this.syncedEnd = fstatSync(fd).size;
    this.timer = setInterval(() => {
      if (this.syncedEnd < this.end) this.durable().catch(() => {});
    }, SYNC_EVERY_MS);
    this.timer.unref();
  }

  static open(options: OpenResults): ResultsWriter {
    const { path, resume } = options;
    const unlock = lockResults(path);
    let fd: number | undefined;
    try {
      if (resume === undefined) checkResultsPath(path);
      fd =
        options.exclusive === true
          ? openNoFollowSync(path, CREATE_NEW, 0o600)
          : openSync(path, OPEN, 0o600);
      // What was checked by name may have been replaced since: the file opened is what counts.
      const info = fstatSync(fd);
      if (!info.isFile()) {
        throw new UsageError(`the results file ${path} is not a regular file`, NOT_A_FILE_HINT);
      }
      if (resume !== undefined && info.size !== resume.size) {
        throw new UsageError(
          `the results file ${path} changed after it was read (is another petstore add writing to it?); nothing was sent and it was left as it was`,
          "run the same command again",
        );
      }
      // The last line --resume found cut short goes.
      if (resume !== undefined && info.size > resume.validBytes)
        ftruncateSync(fd, resume.validBytes);
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      unlock();
      if (error instanceof UsageError) throw error;
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new UsageError(`cannot write the results file ${path} (${code})`);
    }
    const writer = new ResultsWriter(path, fd, unlock, options.concurrency * ROW_BYTES);
    // Written before any room is claimed: a run killed before its first line leaves no
    // file of spaces, which --resume would refuse, but an empty one, a fresh start.
    const run = stringifyJson({ run: options.header });
    writer.pending = `${resume?.lastLineEnded === false ? "\n" : ""}${run}\n`;
    if (!writer.flush()) {
      writer.closeNow();
      throw unwritable(path, writer.failedBy, "nothing was sent");
    }
    return writer;
  }

  /**
   * The `sending` line of a row about to be sent, on disk before its request leaves.
   * Room is claimed first for the lines of every row that may be in flight, then the
   * line is written with the others of this turn (see written). False when the room
   * or the line could not be written: the row must not be sent (and the run stops).
   */
  async sending(row: number, line: number, digest: string): Promise<boolean> {
    if (!this.claim(0)) return false;
    this.record({ row, line, outcome: "sending", digest }, true);
    return this.written();
  }

  /**
   * Resolves at the end of this turn of the event loop, once the lines recorded so
   * far are written; false when they could not be. The rows of one turn await it
   * before their requests leave: one write for all their `sending` lines, and each
   * still reaches the file before its request does.
   */
  written(): Promise<boolean> {
    this.turn ??= new Promise((resolve) =>
      setImmediate(() => {
        this.turn = undefined;
        resolve(this.flush());
      }),
    );
    return this.turn;
  }

  /**
   * Writes the lines recorded and not yet written; false once lines could not be
   * written (then no request may leave: its `sending` line may be missing).
   */
  flush(): boolean {
    if (this.pending !== "" && !this.closed) {
      const bytes = Buffer.from(this.pending, "utf8");
      this.pending = "";
      this.pendingBytes = 0;
      try {
        let offset = 0;
        while (offset < bytes.length) {
          offset += writeSync(this.fd, bytes, offset, bytes.length - offset, this.end + offset);
        }
        this.end += bytes.length;
        this.size = Math.max(this.size, this.end);
      } catch (error) {
        this.linesLost = true;
        this.fail(error);
      }
    }
    return !this.linesLost;
  }

  /**
   * A row's line. A row not being sent (invalid, held back) claims room of its own
   * first; a row sent writes into the room kept for it (see sending).
   */
  record(line: ResultLine, sent = false): void {
    const { row, outcome, id, digest, problems, error } = line;
    // What stringifyJson gives, written out: two lines for each row sent (docs/benchmarks.md).
    let text = `{"row":${row},"line":${line.line},"outcome":"${outcome}"`;
    if (id !== undefined) text += `,"id":${id}`;
    if (digest !== undefined) text += `,"digest":"${digest}"`;
    if (problems !== undefined) text += `,"problems":${stringifyJson(problems)}`;
    if (error !== undefined) text += `,"error":${stringifyJson(error)}`;
    text += "}\n";
    const bytes = Buffer.byteLength(text);
    if (sent || this.claim(bytes)) this.append(text, bytes);
  }

  /** Resolves once everything recorded so far is on disk (syncs run one after another). */
  durable(): Promise<void> {
    this.flush();
    const upTo = this.end;
    this.syncing = this.syncing.then(async () => {
      if (this.syncedEnd >= upTo) return;
      try {
        await datasync(this.fd);
      } catch (error) {
        this.fail(error);
        throw this.failure;
      }
      this.syncedEnd = upTo;
    });
    return this.syncing;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      this.flush();
      this.trim();
      await this.durable();
    } finally {
      this.closeNow();
    }
  }

  private append(text: string, bytes: number): void {
    this.pending += text;
    this.pendingBytes += bytes;
    void this.written();
  }

  /**
   * Claims room on disk for `bytes` more than the lines recorded and the room kept
   * for the rows in flight: a step ahead when the disk allows, else what is needed
   * now. False when the disk has no room for them.
   */
  private claim(bytes: number): boolean {
    const needed = this.end + this.pendingBytes + this.room + bytes;
    if (needed <= this.size) return true;
    try {
      try {
        this.fill(needed + ROOM_STEP);
      } catch {
        this.fill(needed);
      }
      return true;
    } catch (error) {
      this.fail(error);
      return false;
    }
  }

  private fill(target: number): void {
    while (this.size < target) {
      const length = Math.min(FILLER.length, target - this.size);
      this.size += writeSync(this.fd, FILLER, 0, length, this.size);
    }
  }

  /** Cuts the room not used, so that the file ends with its last line. */
  private trim(): void {
    if (this.size === this.end) return;
    try {
      ftruncateSync(this.fd, this.end);
      this.size = this.end;
    } catch {
      // Left as room: a resume reads it as a last line cut short, and cuts it.
    }
  }

  private fail(error: unknown): void {
    if (this.failure !== undefined) return;
    this.failedBy = error;
    this.failure = unwritable(this.path, error, "every row sent has its outcome recorded");
    this.onFailure?.(this.failure);
  }

  /** Closes at once, without syncing: the room not used is cut. */
  private closeNow(): void {
    if (this.closed) return;
    clearInterval(this.timer);
    this.closed = true;
    this.trim();
    closeSync(this.fd);
    this.unlock();
  }
}
