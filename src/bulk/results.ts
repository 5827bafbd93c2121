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
import { UsageError } from "../errors.js";
import { openNoFollowSync } from "../schema/file-safety.js";
import { stringifyJson } from "../schema/json.js";
import { lockResults } from "./results-lock.js";
import type { RowProblem } from "./rows.js";

const datasync = promisify(fdatasync);

/** "a+", but failing on any existing file, a symbolic link (even dangling) included. */
const CREATE_NEW = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL;

/** How often written lines are synced to disk while a run goes on. */
const SYNC_EVERY_MS = 250;

export const OUTCOMES = ["sending", "added", "invalid", "failed", "unknown"] as const;
export type Outcome = (typeof OUTCOMES)[number];

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

  private constructor(
    /** Where the lines go. */
    readonly path: string,
    private readonly fd: number,
    private readonly unlock: () => void,
  ) {
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
      if (resume === undefined || resume.path !== path) assertFresh(path);
      if (resume !== undefined && resume.path !== path) {
        copyFileSync(resume.path, path);
        copied = true;
      }
      fd =
        options.exclusive === true
          ? openNoFollowSync(path, CREATE_NEW, 0o600)
          : openSync(path, "a+", 0o600);
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
    if (!endsWithNewline(fd)) writer.writeText("\n");
    const run: Record<string, string> = { ...options.header };
    writer.writeText(stringifyJson({ run }) + "\n");
    return writer;
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

  /** Writes the lines recorded and not yet written. */
  flush(): void {
    if (this.pending === "") return;
    const text = this.pending;
    const lines = this.pendingLines;
    this.pending = "";
    this.pendingLines = 0;
    this.writeText(text, lines);
  }

  record(line: ResultLine): void {
    this.append(lineText(line) + "\n");
  }

  /** The `sending` line of a row, as record() would write it (`digest` is hex: no escaping). */
  sending(row: number, line: number, digest: string): void {
    this.append(`{"row":${row},"line":${line},"outcome":"sending","digest":"${digest}"}\n`);
  }

  /** The `added` line of a row, as record() would write it (`digest` is hex: no escaping). */
  added(row: number, line: number, digest: string, id: bigint | undefined): void {
    const idText = id === undefined ? "" : `"id":${id},`;
    this.append(`{"row":${row},"line":${line},"outcome":"added",${idText}"digest":"${digest}"}\n`);
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
    clearInterval(this.timer);
    try {
      this.flush();
      await this.durable();
    } finally {
      this.closed = true;
      closeSync(this.fd);
      this.unlock();
    }
  }

  private writeText(text: string, lines = 1): void {
    if (text === "") return;
    const bytes = Buffer.from(text, "utf8");
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(this.fd, bytes, offset);
    this.written += lines;
  }

  private async sync(): Promise<void> {
    const upTo = this.written;
    try {
      await datasync(this.fd);
      this.synced = upTo;
    } finally {
      this.syncing = undefined;
    }
  }
}

/** The JSON of one line (sending() and added() write those two kinds directly). */
function lineText(line: ResultLine): string {
  return stringifyJson({
    row: line.row,
    line: line.line,
    outcome: line.outcome,
    id: line.id,
    digest: line.digest,
    problems: line.problems,
    error: line.error,
  });
}

function endsWithNewline(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 0x0a;
}

/**
 * Cuts the last line --resume found cut short (the file up to `validBytes` was
 * read and checked). Anything that ends a line after `validBytes`, or a file now
 * shorter, means the file changed since (another run wrote to it): nothing is cut.
 */
function cutTornLine(fd: number, path: string, validBytes: number): void {
  const size = fstatSync(fd).size;
  const buffer = Buffer.allocUnsafe(64 * 1024);
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

/** A results file is never overwritten or mixed with another run's: that is what --resume is for. */
function assertFresh(path: string): void {
  let info: Stats;
  try {
    info = statSync(path);
  } catch {
    return;
  }
  // Appending to a device or a FIFO would write where no results file is (or block).
  if (!info.isFile()) {
    throw new UsageError(
      `the results file ${path} is not a regular file`,
      "choose a file for --results (a new one, or an empty one)",
    );
  }
  if (info.size > 0) {
    throw new UsageError(
      `the results file ${path} already exists`,
      `to continue that run, use --resume ${path}; otherwise choose another --results file`,
    );
  }
}

export function checkResultsPath(path: string): void {
  assertFresh(path);
}
