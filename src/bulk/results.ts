/**
 * The results file: NDJSON, appended as rows finish, so a run that is killed
 * loses nothing it learned, and `--resume` continues where it stopped.
 *
 * Lines (the last line of a row is its outcome):
 *   {"run":{...}}                                   one per run: input, format, start
 *   {"row":5,"line":6,"outcome":"sending","digest":"…"}      before the POST
 *   {"row":5,"line":6,"outcome":"added","id":123,"digest":"…"}
 *   {"row":5,"line":6,"outcome":"invalid","problems":[{"field":"status","message":"…"}]}
 *   {"row":5,"line":6,"outcome":"failed","error":{"message":"…","status":400},"digest":"…"}
 *   {"row":5,"line":6,"outcome":"unknown","error":{"message":"…"},"digest":"…"}
 *
 * Every line is written straight to the file (no buffering in the process), so
 * a run that is killed, even with -9, has recorded all it learned; `sending` is
 * written before the request leaves, so a row whose last line is `sending` may
 * have been added by a run that died, and is treated as `unknown`.
 *
 * Room on disk for a row's lines is claimed before its request leaves (see
 * results-room.ts): when the disk is full, the run stops sending, and every row
 * already sent still gets its outcome written. Failing to write is exit 9.
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
  openSync,
  unlinkSync,
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
import { checkResultsPath, cutTornLine } from "./results-open.js";
import { ResultsRoom } from "./results-room.js";

const datasync = promisify(fdatasync);

/**
 * Read and write, created when missing. Not O_APPEND: lines are written at the
 * end of the lines, which is before the room claimed for the next ones.
 */
const OPEN = constants.O_RDWR | constants.O_CREAT;
/** The same, but failing on any existing file, a symbolic link (even dangling) included (with openNoFollowSync). */
const CREATE_NEW = OPEN | constants.O_EXCL;

/** How often written lines are synced to disk while a run goes on. */
const SYNC_EVERY_MS = 250;

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
  private written = 0;
  private synced = 0;
  private syncing: Promise<void> | undefined;
  private closed = false;
  /** Lines recorded but not yet written (batched mode only; see batchLines). */
  private pending = "";
  private pendingLines = 0;
  private batched = false;
  private flushScheduled = false;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly room: ResultsRoom;
  private failed: PetstoreError | undefined;
  private failedBy: unknown;
  private onFailure: ((error: PetstoreError) => void) | undefined;

  private constructor(
    /** Where the lines go. */
    readonly path: string,
    private readonly fd: number,
    private readonly unlock: () => void,
  ) {
    this.room = new ResultsRoom(fd, fstatSync(fd).size);
    this.timer = setInterval(() => {
      if (this.synced < this.written) this.durable().catch(() => {});
    }, SYNC_EVERY_MS);
    this.timer.unref();
  }

  static open(options: OpenResults): ResultsWriter {
    const { path, resume } = options;
    const unlockTarget = lockResults(path);
    const unlockSource =
      resume !== undefined && resume.path !== path ? lockResults(resume.path) : () => {};
    const unlock = () => {
      unlockTarget();
      unlockSource();
    };
    let fd: number | undefined;
    let copied = false;
    try {
      if (resume === undefined || resume.path !== path) checkResultsPath(path);
      if (resume !== undefined && resume.path !== path) {
        copyFileSync(resume.path, path);
        copied = true;
      }
      fd =
        options.exclusive === true
          ? openNoFollowSync(path, CREATE_NEW, 0o600)
          : openSync(path, OPEN, 0o600);
      // What was checked by name may have been replaced since: the file opened is what counts.
      if (!fstatSync(fd).isFile()) {
        throw new UsageError(
          `the results file ${path} is not a regular file`,
          "choose a file for --results (a new one, or an empty one)",
        );
      }
      if (resume !== undefined) cutTornLine(fd, path, resume.validBytes);
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      if (copied) unlinkSync(path);
      unlock();
      if (error instanceof UsageError) throw error;
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new UsageError(`cannot write the results file ${path} (${code})`);
    }
    const writer = new ResultsWriter(path, fd, unlock);
    const run: Record<string, string> = { ...options.header };
    const first = (writer.room.endsWithNewline() ? "" : "\n") + stringifyJson({ run }) + "\n";
    // Written before any room is claimed: a run killed before its first line leaves no
    // file of spaces, which --resume would refuse, but an empty one, a fresh start.
    if (!writer.writeText(first)) {
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
    try {
      this.room.claim(sendingBytes(row, line) + outcomeBytes(row, line));
      return true;
    } catch (error) {
      this.fail(error);
      return false;
    }
  }

  /**
   * From now on, lines recorded in one turn of the event loop are written
   * together, in one write, at the end of that turn, or earlier by flush(). The
   * caller must call flush() before any request leaves, so that each `sending`
   * line still reaches the file before its request does.
   */
  batchLines(): void {
    this.batched = true;
  }

  /** Writes the lines recorded and not yet written; false when they could not be. */
  flush(): boolean {
    if (this.pending === "") return true;
    const text = this.pending;
    const lines = this.pendingLines;
    this.pending = "";
    this.pendingLines = 0;
    return this.writeText(text, lines);
  }

  /** A line of a row not being sent (invalid, held back): it takes room of its own. */
  record(line: ResultLine): void {
    this.appendFree(lineText(line) + "\n");
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

  /** A line written into `kept` bytes of room reserved for it; what it does not use is given back. */
  private appendReserved(text: string, kept: number): void {
    const bytes = Buffer.byteLength(text);
    if (bytes <= kept) this.room.release(kept - bytes);
    else if (!this.claim(bytes - kept)) return;
    this.append(text);
  }

  /** A line that claims its own room first; false (and not written) when there is none. */
  private appendFree(text: string): boolean {
    if (!this.claim(Buffer.byteLength(text))) return false;
    this.append(text);
    return true;
  }

  private claim(bytes: number): boolean {
    try {
      this.room.claim(bytes);
      return true;
    } catch (error) {
      this.fail(error);
      return false;
    }
  }

  private fail(error: unknown): void {
    if (this.failed !== undefined) return;
    this.failedBy = error;
    this.failed = unwritable(this.path, error, "every row sent has its outcome recorded");
    this.onFailure?.(this.failed);
  }

  private append(text: string): void {
    if (!this.batched || this.closed) {
      this.writeText(text);
      return;
    }
    this.pending += text;
    this.pendingLines++;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        if (!this.closed) this.flush();
      });
    }
  }

  /** Resolves once everything recorded so far is on disk. */
  async durable(): Promise<void> {
    this.flush();
    const target = this.written;

    while (this.synced < target) {
      this.syncing ??= this.sync();
      await this.syncing;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      this.flush();
      this.room.trim();
      await this.durable();
    } finally {
      this.closeNow();
    }
  }

  /** Closes at once, without syncing: the room not used is cut. */
  private closeNow(): void {
    if (this.closed) return;
    clearInterval(this.timer);
    this.closed = true;
    this.room.trim();
    closeSync(this.fd);
    this.unlock();
  }

  /** False when the text could not be written (the run then stops: see fail). */
  private writeText(text: string, lines = 1): boolean {
    if (text === "") return true;
    try {
      this.room.write(Buffer.from(text, "utf8"));
    } catch (error) {
      this.fail(error);
      return false;
    }
    this.written += lines;
    return true;
  }

  private async sync(): Promise<void> {
    const upTo = this.written;
    try {
      await datasync(this.fd);
      this.synced = upTo;
    } catch (error) {
      this.fail(error);
      throw this.failed!;
    } finally {
      this.syncing = undefined;
    }
  }
}
