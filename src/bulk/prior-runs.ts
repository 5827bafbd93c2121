/**
 * What the results file of earlier runs says about each row (`--resume`): the
 * last line of a row is its state, and for an `added` row its id (for `-q` and
 * `--json`, which report the rows added before too). Kept compact (a byte, a
 * 64-bit digest and a 64-bit id per row) so a 100,000-row run resumes in a few
 * megabytes.
 *
 * A results file is recognised by its first line, the `run` line; anything else
 * (an input file, notes) is refused and left as it was. A last line cut short (a
 * write cut short when the power went) is dropped, and so is whatever it was
 * about to say: at worst a row looks `sending`, and is then treated as `unknown`,
 * never as not sent. A complete line that is not a results line refuses the file:
 * resuming only ever appends, it never cuts a complete line.
 */
import { nonRegularKind } from "../files/file-kind.js";
import { constants } from "node:fs";
import { open, stat, type FileHandle } from "node:fs/promises";
import { UsageError } from "../errors.js";
import { parseJson } from "../schema/json.js";
import { INT64_MAX, INT64_MIN } from "../schema/pet.js";
import { OUTCOMES, type Outcome } from "./result-lines.js";

export const enum PriorState {
  None = 0,
  Sending,
  Added,
  Invalid,
  Failed,
  Unknown,
}

const STATE_OF: Record<Outcome, PriorState> = {
  sending: PriorState.Sending,
  added: PriorState.Added,
  invalid: PriorState.Invalid,
  failed: PriorState.Failed,
  unknown: PriorState.Unknown,
};

/** The size of each read of the file. */
export const READ_CHUNK_BYTES = 64 * 1024;

const HAS_DIGEST = 0x80;
const HAS_ID = 0x40;
const STATE_BITS = 0x3f;
const DIGEST = /^[0-9a-f]{16}$/;

export class PriorRuns {
  private states = new Uint8Array(1024);
  private digests = new Uint32Array(2048);
  /** The id of each `added` row whose line gave one (int64, exact). */
  private ids = new BigInt64Array(1024);
  /** The highest row number with a line. */
  maxRow = 0;
  /** Bytes of the file up to the end of its last complete line. */
  validBytes = 0;

  set(row: number, state: PriorState, digest: string | undefined, id?: bigint): void {
    if (row >= this.states.length) {
      let size = this.states.length;
      while (size <= row) size *= 2;
      const states = new Uint8Array(size);
      states.set(this.states);
      this.states = states;
      const digests = new Uint32Array(size * 2);
      digests.set(this.digests);
      this.digests = digests;
      const ids = new BigInt64Array(size);
      ids.set(this.ids);
      this.ids = ids;
    }
    // A line without a digest (one written by hand to settle an unknown row) keeps the
    // row's digest; an `invalid` line has none because nothing valid was there.
    const keep = digest === undefined && state !== PriorState.Invalid;
    const hasDigest =
      digest !== undefined || (keep && ((this.states[row] ?? 0) & HAS_DIGEST) !== 0);
    const hasId = id !== undefined && state === PriorState.Added;
    this.states[row] = state | (hasDigest ? HAS_DIGEST : 0) | (hasId ? HAS_ID : 0);
    if (hasId) this.ids[row] = id;
    if (digest !== undefined) {
      this.digests[row * 2] = parseInt(digest.slice(0, 8), 16);
      this.digests[row * 2 + 1] = parseInt(digest.slice(8), 16);
    }
    if (row > this.maxRow) this.maxRow = row;
  }

  state(row: number): PriorState {
    return ((this.states[row] ?? 0) & STATE_BITS) as PriorState;
  }

  /** The id of a row added before, when its `added` line gave one. */
  id(row: number): bigint | undefined {
    return ((this.states[row] ?? 0) & HAS_ID) !== 0 ? this.ids[row] : undefined;
  }

  /** Whether the row's last line was about exactly this content. */
  sameContent(row: number, digest: string | undefined): boolean {
    const stored = this.states[row] ?? 0;
    if ((stored & HAS_DIGEST) === 0 || digest === undefined) return false;
    return (
      this.digests[row * 2] === parseInt(digest.slice(0, 8), 16) &&
      this.digests[row * 2 + 1] === parseInt(digest.slice(8), 16)
    );
  }

  /** Rows above `rowCount` that were (or may have been) added. */
  *sentBeyond(rowCount: number): Generator<number> {
    for (let row = rowCount + 1; row <= this.maxRow; row++) {
      const state = this.state(row);
      if (
        state === PriorState.Added ||
        state === PriorState.Sending ||
        state === PriorState.Unknown
      ) {
        yield row;
      }
    }
  }
}

interface ParsedLine {
  row: number;
  state: PriorState;
  digest?: string;
  id?: bigint;
}

/** The exact id of an `added` line: JSON.parse rounds integers above 2^53. */
function idOf(text: string, id: unknown): bigint | undefined | "bad" {
  if (id === undefined) return undefined;
  if (typeof id !== "number" || !Number.isInteger(id)) return "bad";
  if (Number.isSafeInteger(id)) return BigInt(id);
  const exact = (parseJson(text) as Record<string, unknown>).id;
  return typeof exact === "bigint" && exact >= INT64_MIN && exact <= INT64_MAX ? exact : "bad";
}

function parseLine(text: string): ParsedLine | "other" | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (!("row" in record)) return "other";
  const { row, outcome, digest, id } = record;
  if (typeof row !== "number" || !Number.isSafeInteger(row) || row < 1) return undefined;
  if (typeof outcome !== "string" || !(OUTCOMES as readonly string[]).includes(outcome))
    return undefined;
  if (digest !== undefined && (typeof digest !== "string" || !DIGEST.test(digest)))
    return undefined;
  const parsed: ParsedLine = { row, state: STATE_OF[outcome as Outcome] };
  if (digest !== undefined) parsed.digest = digest;
  if (parsed.state === PriorState.Added) {
    const exact = idOf(text, id);
    if (exact === "bad") return undefined;
    if (exact !== undefined) parsed.id = exact;
  }
  return parsed;
}

/** A run line holds an input's name and a path or two; a first line longer than this is not one. */
const MAX_RUN_LINE_BYTES = 1024 * 1024;

function isRunLine(bytes: Buffer): boolean {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return false;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const run = (value as Record<string, unknown>).run;
  return typeof run === "object" && run !== null && !Array.isArray(run) && !("row" in value);
}

const LEFT_AS_IT_WAS = "it was left as it was and nothing was sent";

function notResults(path: string): UsageError {
  return new UsageError(
    `--resume ${path} is not a petstore results file: its first line is not the {"run":…} line every run writes first`,
    `${LEFT_AS_IT_WAS}; give the file that --results wrote, or start a new run with --results <new file>`,
  );
}

/**
 * The lines of the file, chunk by chunk. The first line must be a run line (else
 * the file is not a results file, and nothing more is read); every complete line
 * after it must be a results line; only a last line without its newline may be
 * broken (cut short), and it is then left out of `validBytes`.
 */
class LineScanner {
  private lineNumber = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly prior: PriorRuns,
    private readonly path: string,
  ) {}

  /** Scans `bytes`, read at `position` of the file. */
  scan(bytes: Buffer, position: number): void {
    let start = 0;
    for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, start)) {
      const piece = bytes.subarray(start, at);
      const line = this.pending.length > 0 ? Buffer.concat([...this.pending, piece]) : piece;
      this.pending = [];
      this.pendingBytes = 0;
      this.line(line, position + at + 1, true);
      start = at + 1;
    }
    if (start < bytes.length) {
      this.pending.push(bytes.subarray(start));
      this.pendingBytes += bytes.length - start;
      if (this.lineNumber === 0 && this.pendingBytes > MAX_RUN_LINE_BYTES) {
        throw notResults(this.path);
      }
    }
  }

  /** The end of the file, `size` bytes in. */
  finish(size: number): void {
    if (this.pendingBytes > 0) this.line(Buffer.concat(this.pending), size, false);
  }

  private line(bytes: Buffer, end: number, complete: boolean): void {
    this.lineNumber++;
    if (this.lineNumber === 1) {
      if (!isRunLine(bytes)) throw notResults(this.path);
    } else if (bytes.length > 0) {
      const parsed = parseLine(bytes.toString("utf8"));
      if (parsed === undefined) {
        // A last line cut short is dropped (and cut when the run continues); a whole one never is.
        if (!complete) return;
        throw new UsageError(
          `--resume ${this.path}: line ${this.lineNumber} is not a line of a petstore results file`,
          `${LEFT_AS_IT_WAS}; a results file holds one JSON object per line: fix or delete that line`,
        );
      }
      if (parsed !== "other") this.prior.set(parsed.row, parsed.state, parsed.digest, parsed.id);
    }
    this.prior.validBytes = end;
  }
}

/** Opens the file to read, refusing anything but a regular file (a FIFO would block, a device never end). */
async function openResults(path: string): Promise<FileHandle> {
  let handle: FileHandle | undefined;
  try {
    const info = await stat(path);
    if (info.isFile()) {
      handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
      if ((await handle.stat()).isFile()) return handle;
    }
    throw new UsageError(
      `--resume ${path} is not a regular file (${nonRegularKind(info)})`,
      `${LEFT_AS_IT_WAS}; give the file that --results wrote`,
    );
  } catch (error) {
    await handle?.close();
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : (code ?? String(error));
    throw new UsageError(
      `--resume ${path} cannot be read (${why})`,
      "give the results file of the earlier run; a first run takes --results <file>",
    );
  }
}

/**
 * Reads the results file of earlier runs. A 0-byte file is a run that wrote
 * nothing (killed before its first line): a fresh start. Anything that is not a
 * results file is refused (UsageError) before a byte of it is changed.
 */
export async function readPriorRuns(path: string): Promise<PriorRuns> {
  const prior = new PriorRuns();
  const scanner = new LineScanner(prior, path);
  const handle = await openResults(path);
  try {
    let position = 0;
    for (;;) {
      // A buffer per read: the scanner keeps the part of a line that runs into the next one.
      const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, READ_CHUNK_BYTES, position);
      if (bytesRead === 0) break;
      scanner.scan(buffer.subarray(0, bytesRead), position);
      position += bytesRead;
    }
    scanner.finish(position);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`--resume ${path} cannot be read (${code})`);
  } finally {
    await handle.close();
  }
  return prior;
}
