/**
 * What the results file of earlier runs says about each row (`--resume`): the
 * last line of a row is its state, and for an `added` row its id (for `-q` and
 * `--json`, which report the rows added before too). Kept compact (a byte, a
 * 64-bit digest and a 64-bit id per row) so a 100,000-row run resumes in a few
 * megabytes.
 *
 * A results file is recognised by its first line, the `run` line; anything else
 * (an input file, notes) is refused and left as it was. A last line cut short (a
 * write cut short when the power went, or the room a killed run had claimed) is
 * dropped, and so is whatever it was about to say: at worst a row looks
 * `sending`, and is then treated as `unknown`, never as not sent. A complete line
 * that is not a results line refuses the file: resuming only ever appends, it
 * never cuts a complete line.
 */
import { nonRegularKind } from "../files/file-kind.js";
import { constants } from "node:fs";
import { open, stat, type FileHandle } from "node:fs/promises";
import { UsageError } from "../errors.js";
import { parseJson } from "../schema/json.js";
import { INT64_MAX, INT64_MIN } from "../schema/pet.js";
import { OUTCOMES } from "./result-lines.js";

/** In the order of OUTCOMES, after None. */
export const enum PriorState {
  None = 0,
  Sending,
  Added,
  Invalid,
  Failed,
  Unknown,
}

/** The size of each read of the file. */
export const READ_CHUNK_BYTES = 64 * 1024;

/** A run line holds an input's name and a path or two, and a results line less: a longer line is neither. */
const MAX_LINE_BYTES = 1024 * 1024;

const HAS_DIGEST = 0x80;
const HAS_ID = 0x40;
const STATE_BITS = 0x3f;
const DIGEST = /^[0-9a-f]{16}$/;

export class PriorRuns {
  private states = new Uint8Array(1024);
  private digests = new BigUint64Array(1024);
  /** The id of each `added` row whose line gave one (int64, exact). */
  private ids = new BigInt64Array(1024);
  /** The highest row number with a line. */
  maxRow = 0;
  /** Bytes of the file up to the end of its last complete line. */
  validBytes = 0;

  set(row: number, state: PriorState, digest: string | undefined, id?: bigint): void {
    if (row >= this.states.length) {
      const size = 2 ** Math.ceil(Math.log2(row + 1));
      const states = new Uint8Array(size);
      const digests = new BigUint64Array(size);
      const ids = new BigInt64Array(size);
      states.set(this.states);
      digests.set(this.digests);
      ids.set(this.ids);
      this.states = states;
      this.digests = digests;
      this.ids = ids;
    }
    // A line without a digest (one written by hand to settle an unknown row) keeps the
    // row's digest; an `invalid` line has none because nothing valid was there.
    const keep = digest === undefined && state !== PriorState.Invalid;
    const hasDigest = digest !== undefined || (keep && (this.states[row]! & HAS_DIGEST) !== 0);
    const hasId = id !== undefined && state === PriorState.Added;
    this.states[row] = state | (hasDigest ? HAS_DIGEST : 0) | (hasId ? HAS_ID : 0);
    if (hasId) this.ids[row] = id;
    if (digest !== undefined) this.digests[row] = BigInt(`0x${digest}`);
    this.maxRow = Math.max(this.maxRow, row);
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
    if (((this.states[row] ?? 0) & HAS_DIGEST) === 0 || digest === undefined) return false;
    return this.digests[row] === BigInt(`0x${digest}`);
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The `run` line every run writes first; undefined when `text` is not one. */
export function runLine(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) && isRecord(value.run) && !("row" in value) ? value.run : undefined;
  } catch {
    return undefined;
  }
}

/** Reads a results line into `prior`; false when it is not one (a line without `row` is let be). */
function readLine(prior: PriorRuns, text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  if (!isRecord(value)) return false;
  if (!("row" in value)) return true;
  const { row, outcome, digest, id } = value;
  const state = OUTCOMES.indexOf(outcome as never) + 1;
  if (typeof row !== "number" || !Number.isSafeInteger(row) || row < 1 || state === 0) return false;
  if (digest !== undefined && (typeof digest !== "string" || !DIGEST.test(digest))) return false;
  let exact: bigint | undefined;
  if (state === PriorState.Added && id !== undefined) {
    if (typeof id !== "number" || !Number.isInteger(id)) return false;
    // JSON.parse rounds integers above 2^53: read those again, exactly.
    const read = Number.isSafeInteger(id) ? BigInt(id) : (parseJson(text) as { id: unknown }).id;
    if (typeof read !== "bigint" || read < INT64_MIN || read > INT64_MAX) return false;
    exact = read;
  }
  prior.set(row, state, digest as string | undefined, exact);
  return true;
}

const LEFT_AS_IT_WAS = "it was left as it was and nothing was sent";

function notResults(path: string): UsageError {
  return new UsageError(
    `--resume ${path} is not a petstore results file: its first line is not the {"run":…} line every run writes first`,
    `${LEFT_AS_IT_WAS}; give the file that --results wrote, or start a new run with --results <new file>`,
  );
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
 * The lines of a file: each with the offset just past it, and whether a line
 * break ended it (only the last one may lack it). A line longer than
 * MAX_LINE_BYTES is given cut, as if ended, and ends the reading.
 */
async function* linesOf(
  handle: FileHandle,
): AsyncGenerator<{ text: string; end: number; ended: boolean }> {
  let carried = Buffer.alloc(0);
  let position = 0;
  for (;;) {
    const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, READ_CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    const read = buffer.subarray(0, bytesRead);
    const bytes = carried.length > 0 ? Buffer.concat([carried, read]) : read;
    const base = position - carried.length;
    position += bytesRead;
    let start = 0;
    for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, start)) {
      yield { text: bytes.toString("utf8", start, at), end: base + at + 1, ended: true };
      start = at + 1;
    }
    carried = bytes.subarray(start);
    if (carried.length > MAX_LINE_BYTES) {
      yield { text: carried.toString("utf8"), end: position, ended: true };
      return;
    }
  }
  if (carried.length > 0) yield { text: carried.toString("utf8"), end: position, ended: false };
}

/**
 * Reads the results file of earlier runs. A 0-byte file is a run that wrote
 * nothing (killed before its first line): a fresh start. Anything that is not a
 * results file is refused (UsageError) before a byte of it is changed.
 */
export async function readPriorRuns(path: string): Promise<PriorRuns> {
  const prior = new PriorRuns();
  const handle = await openResults(path);
  try {
    let number = 0;
    for await (const { text, end, ended } of linesOf(handle)) {
      if (++number === 1) {
        if (runLine(text) === undefined) throw notResults(path);
      } else if (text !== "" && !readLine(prior, text)) {
        // A last line cut short is dropped (and cut when the run continues); a whole one never is.
        if (!ended) break;
        throw new UsageError(
          `--resume ${path}: line ${number} is not a line of a petstore results file`,
          `${LEFT_AS_IT_WAS}; a results file holds one JSON object per line: fix or delete that line`,
        );
      }
      prior.validBytes = end;
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`--resume ${path} cannot be read (${code})`);
  } finally {
    await handle.close();
  }
  return prior;
}
