/**
 * The results file: NDJSON, appended as rows finish, so a run that is killed
 * loses nothing it learned, and `--resume` continues where it stopped. Its lines
 * are in result-lines.ts; earlier runs are read by prior-runs.ts.
 *
 * Lines are written by this process straight to the file, the lines of one turn
 * of the event loop in one write, before the requests of that turn leave (see
 * written): a run that is killed, even with -9, has recorded all it learned,
 * and a row whose last line is `sending` may have been added (it is `unknown`).
 *
 * Room on disk for a row's lines is claimed before its request leaves, by
 * writing filler where the lines will go (Node has no fallocate), ROOM_STEP bytes
 * at a time: when the disk is full, the claim fails and the row is not sent,
 * while the rows already sent write their outcomes into room that is theirs.
 * Lines are therefore written at the end of the lines, not appended (no
 * O_APPEND). The filler is spaces with no line break: a run killed with -9
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
  copyFileSync,
  fdatasync,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from "node:fs";
import { promisify } from "node:util";
import { EXIT, PetstoreError, UsageError } from "../errors.js";
import { openNoFollowSync } from "../files/file-safety.js";
import { stringifyJson } from "../schema/json.js";
import {
  lineText,
  outcomeBytes,
  sendingBytes,
  type ResultLine,
  type RunHeader,
} from "./result-lines.js";
import { lockResults } from "./results-lock.js";

const datasync = promisify(fdatasync);

/** Read and write, created when missing (not O_APPEND: lines go before the room claimed). */
const OPEN = constants.O_RDWR | constants.O_CREAT;
/** The same, but failing on any existing file, a symbolic link (even dangling) included (with openNoFollowSync). */
const CREATE_NEW = OPEN | constants.O_EXCL;

/** How often written lines are synced to disk while a run goes on. */
const SYNC_EVERY_MS = 250;

/** Room is claimed this many bytes at a time (or what is left, when the disk is nearly full). */
const ROOM_STEP = 64 * 1024;
const FILLER = Buffer.alloc(ROOM_STEP, 0x20);

export interface OpenResults {
  path: string;
  header: RunHeader;
  /**
   * Continue this file (`--resume`): `validBytes` of it (as readPriorRuns found) are
   * kept and a torn last line after them is cut; a complete line is never cut.
   */
  resume?: { path: string; validBytes: number };
  /**
   * Create the file, which must not exist: never open an existing file or follow a
   * symbolic link in its place (the results file a long run gets without asking).
   */
  exclusive?: boolean;
}

const NOT_A_FILE_HINT = "choose a file for --results (a new one, or an empty one)";

/** A results file is never overwritten or mixed with another run's: that is what --resume is for. */
export function checkResultsPath(path: string): void {
  let info: Stats;
  try {
    info = statSync(path);
  } catch {
    return;
  }
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

/**
 * Cuts the last line --resume found cut short (the file up to `validBytes` was
 * read and checked). Anything that ends a line after `validBytes`, or a file now
 * shorter, means the file changed since (another run wrote to it): nothing is cut.
 */
function cutTornLine(fd: number, path: string, validBytes: number): void {
  const size = fstatSync(fd).size;
  const buffer = Buffer.allocUnsafe(ROOM_STEP);
  let at = validBytes;
  while (at < size) {
    const read = readSync(fd, buffer, 0, Math.min(buffer.length, size - at), at);
    if (read === 0 || buffer.subarray(0, read).includes(0x0a)) break;
    at += read;
  }
  if (at !== size || size < validBytes) {
    throw new UsageError(
      `the results file ${path} changed after it was read (is another petstore add writing to it?); nothing was sent and it was left as it was`,
      "run the same command again",
    );
  }
  if (size > validBytes) ftruncateSync(fd, validBytes);
}

/** Why the results file cannot be written, and what became of the run (exit 9). */
function unwritable(path: string, error: unknown, outcome: string): PetstoreError {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === "ENOSPC"
      ? "the disk is full (ENOSPC)"
      : code === "EDQUOT"
        ? "the disk quota is used up (EDQUOT)"
        : (code ?? String(error));
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
  /** Bytes promised beyond `end`: lines waiting to be written, room kept for rows in flight. */
  private promised = 0;
  private syncedEnd: number;
  private syncing: Promise<void> | undefined;
  private closed = false;
  /** Lines recorded but not yet written: written once per turn of the event loop (see written). */
  private pending = "";
  private turn: Promise<boolean> | undefined;
  /** A write of lines failed: nothing more may be sent. */
  private linesLost = false;
  private readonly timer: ReturnType<typeof setInterval>;
  private failed: PetstoreError | undefined;
  private failedBy: unknown;
  private onFailure: ((error: PetstoreError) => void) | undefined;

  private constructor(
    /** Where the lines go. */
    readonly path: string,
    private readonly fd: number,
    private readonly unlock: () => void,
  ) {
    this.end = this.size = this.syncedEnd = fstatSync(fd).size;
    this.timer = setInterval(() => {
      if (this.syncedEnd < this.end) this.durable().catch(() => {});
    }, SYNC_EVERY_MS);
    this.timer.unref();
  }

  static open(options: OpenResults): ResultsWriter {
    const { path, resume } = options;
    const elsewhere = resume !== undefined && resume.path !== path;
    const unlockTarget = lockResults(path);
    let unlockSource = () => {};
    let fd: number | undefined;
    let copied = false;
    try {
      if (elsewhere) unlockSource = lockResults(resume.path);
      if (resume === undefined || elsewhere) checkResultsPath(path);
      if (elsewhere) {
        copyFileSync(resume.path, path);
        copied = true;
      }
      fd =
        options.exclusive === true
          ? openNoFollowSync(path, CREATE_NEW, 0o600)
          : openSync(path, OPEN, 0o600);
      // What was checked by name may have been replaced since: the file opened is what counts.
      if (!fstatSync(fd).isFile()) {
        throw new UsageError(`the results file ${path} is not a regular file`, NOT_A_FILE_HINT);
      }
      if (resume !== undefined) cutTornLine(fd, path, resume.validBytes);
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      if (copied) unlinkSync(path);
      unlockTarget();
      unlockSource();
      if (error instanceof UsageError) throw error;
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new UsageError(`cannot write the results file ${path} (${code})`);
    }
    const writer = new ResultsWriter(path, fd, () => {
      unlockTarget();
      unlockSource();
    });
    // Written before any room is claimed: a run killed before its first line leaves no
    // file of spaces, which --resume would refuse, but an empty one, a fresh start.
    const run = stringifyJson({ run: options.header });
    writer.pending = `${writer.endsWithNewline() ? "" : "\n"}${run}\n`;
    if (!writer.flush()) {
      writer.closeNow();
      throw unwritable(path, writer.failedBy, "nothing was sent");
    }
    return writer;
  }

  /** Why the file could not be written, once it could not. */
  get failure(): PetstoreError | undefined {
    return this.failed;
  }

  /** Called once, the first time the file cannot be written (the run stops sending). */
  whenFailed(listener: (error: PetstoreError) => void): void {
    this.onFailure = listener;
  }

  /**
   * Claims room for the lines of a row about to be sent: its `sending` line and
   * its outcome. False when the disk has no room: the row must not be sent.
   */
  reserveRow(row: number, line: number): boolean {
    return this.claim(sendingBytes(row, line) + outcomeBytes(row, line));
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
      try {
        let offset = 0;
        while (offset < bytes.length) {
          offset += writeSync(this.fd, bytes, offset, bytes.length - offset, this.end + offset);
        }
        this.end += bytes.length;
        this.size = Math.max(this.size, this.end);
        this.promised = Math.max(0, this.promised - bytes.length);
      } catch (error) {
        this.linesLost = true;
        this.fail(error);
      }
    }
    return !this.linesLost;
  }

  /** A line of a row not being sent (invalid, held back): it takes room of its own. */
  record(line: ResultLine): void {
    const text = lineText(line) + "\n";
    if (this.claim(Buffer.byteLength(text))) this.append(text);
  }

  /** The outcome line of a row sent, into the room reserveRow kept for it. */
  recordOutcome(line: ResultLine): void {
    this.appendReserved(lineText(line) + "\n", outcomeBytes(line.row, line.line));
  }

  /** The `sending` line of a row, as record() would write it (`digest` is hex: no escaping). */
  sending(row: number, line: number, digest: string): void {
    this.appendReserved(
      `{"row":${row},"line":${line},"outcome":"sending","digest":"${digest}"}\n`,
      sendingBytes(row, line),
    );
  }

  /** The `added` line of a row, as record() would write it (`digest` is hex: no escaping). */
  added(row: number, line: number, digest: string, id: bigint | undefined): void {
    const idText = id === undefined ? "" : `"id":${id},`;
    this.appendReserved(
      `{"row":${row},"line":${line},"outcome":"added",${idText}"digest":"${digest}"}\n`,
      outcomeBytes(row, line),
    );
  }

  /** Resolves once everything recorded so far is on disk. */
  async durable(): Promise<void> {
    this.flush();
    const target = this.end;
    while (this.syncedEnd < target) {
      this.syncing ??= this.sync();
      await this.syncing;
    }
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

  /** A line written into `kept` bytes of room reserved for it; what it does not use is given back. */
  private appendReserved(text: string, kept: number): void {
    const bytes = Buffer.byteLength(text);
    if (bytes <= kept) this.promised = Math.max(0, this.promised - (kept - bytes));
    else if (!this.claim(bytes - kept)) return;
    this.append(text);
  }

  private append(text: string): void {
    this.pending += text;
    void this.written();
  }

  /**
   * Promises `bytes` more, claiming room on disk first when needed: a step ahead
   * when the disk allows, else what is needed now. False (nothing promised) when
   * the disk has no room for them.
   */
  private claim(bytes: number): boolean {
    const needed = this.end + this.promised + bytes;
    try {
      if (needed > this.size) {
        try {
          this.fill(Math.max(needed, this.size + ROOM_STEP));
        } catch {
          this.fill(needed);
        }
      }
    } catch (error) {
      this.fail(error);
      return false;
    }
    this.promised += bytes;
    return true;
  }

  private fill(target: number): void {
    while (this.size < target) {
      const length = Math.min(FILLER.length, target - this.size);
      this.size += writeSync(this.fd, FILLER, 0, length, this.size);
    }
  }

  /** Whether the lines end with a line break (or there are none). */
  private endsWithNewline(): boolean {
    if (this.end === 0) return true;
    const last = Buffer.alloc(1);
    readSync(this.fd, last, 0, 1, this.end - 1);
    return last[0] === 0x0a;
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
    if (this.failed !== undefined) return;
    this.failedBy = error;
    this.failed = unwritable(this.path, error, "every row sent has its outcome recorded");
    this.onFailure?.(this.failed);
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

  private async sync(): Promise<void> {
    const upTo = this.end;
    try {
      await datasync(this.fd);
      this.syncedEnd = upTo;
    } catch (error) {
      this.fail(error);
      throw this.failed!;
    } finally {
      this.syncing = undefined;
    }
  }
}
