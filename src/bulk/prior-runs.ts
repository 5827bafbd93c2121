/**
 * What the results file of earlier runs says about each row (`--resume`): the
 * last line of a row is its state, and for an `added` row its id (for `-q` and
 * `--json`, which report the rows added before too): a small object per row,
 * so a 100,000-row run resumes in a few megabytes.
 *
 * A results file is recognised by its first line, the `run` line; anything else
 * (an input file, notes) is refused and left as it was. A last line cut short (a
 * write cut short when the power went, or the room a killed run had claimed) is
 * dropped, and so is whatever it was about to say: at worst a row looks
 * `sending`, and is then treated as `unknown`, never as not sent. A complete line
 * that is not a results line refuses the file: resuming only ever appends, it
 * never cuts a complete line.
 */
import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { UsageError } from "../errors.js";
import { nonRegularKind, whyUnreadable } from "../files/file-kind.js";
import { parseJson } from "../schema/json.js";
import { INT64_MAX, INT64_MIN } from "../schema/pet.js";
import { OUTCOMES } from "./results.js";

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

const DIGEST = /^[0-9a-f]{16}$/;

export class PriorRuns {
  /** Each row's last line: its state, the digest of its content, the id it was added with. */
  private readonly rows: Array<{ state: PriorState; digest?: string; id?: bigint } | undefined> =
    [];
  /** The highest row number with a line. */
  maxRow = 0;
  /** Bytes of the file up to the end of its last complete line. */
  validBytes = 0;
  /** Bytes of the file as it was read: a resume refuses a file that changed since. */
  size = 0;
  /** The last line kept ends with a line break (or there is none). */
  lastLineEnded = true;

  constructor(readonly path: string) {}

  set(row: number, state: PriorState, digest: string | undefined, id?: bigint): void {
    // A line without a digest (one written by hand to settle an unknown row) keeps the
    // row's digest; an `invalid` line has none because nothing valid was there.
    const kept = digest ?? (state === PriorState.Invalid ? undefined : this.rows[row]?.digest);
    this.rows[row] = { state, digest: kept, id: state === PriorState.Added ? id : undefined };
    this.maxRow = Math.max(this.maxRow, row);
  }

  state(row: number): PriorState {
    return this.rows[row]?.state ?? PriorState.None;
  }

  /** The id of a row added before, when its `added` line gave one. */
  id(row: number): bigint | undefined {
    return this.rows[row]?.id;
  }

  /** Whether the row's last line was about exactly this content. */
  sameContent(row: number, digest: string | undefined): boolean {
    return digest !== undefined && this.rows[row]?.digest === digest;
  }

  /** Rows above `rowCount` that were (or may have been) added. */
  *sentBeyond(rowCount: number): Generator<number> {
    for (let row = rowCount + 1; row <= this.maxRow; row++) if (wasSent(this.state(row))) yield row;
  }
}

/** Whether a row in this state was, or may have been, added. */
export function wasSent(state: PriorState): boolean {
  return state === PriorState.Added || state === PriorState.Sending || state === PriorState.Unknown;
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
    // Lossless: row numbers and ids are read as bigint, exactly.
    value = parseJson(text);
  } catch {
    return false;
  }
  if (!isRecord(value)) return false;
  if (!("row" in value)) return true;
  const { row, outcome, digest, id } = value;
  const state = OUTCOMES.indexOf(outcome as never) + 1;
  if (typeof row !== "bigint" || row < 1n || row > Number.MAX_SAFE_INTEGER || state === 0) {
    return false;
  }
  if (digest !== undefined && (typeof digest !== "string" || !DIGEST.test(digest))) return false;
  const added = state === PriorState.Added;
  const int64 = typeof id === "bigint" && id >= INT64_MIN && id <= INT64_MAX;
  if (added && id !== undefined && !int64) return false;
  prior.set(Number(row), state, digest as string | undefined, added && int64 ? id : undefined);
  return true;
}

const LEFT_AS_IT_WAS = "it was left as it was and nothing was sent";

/**
 * The lines of a file: each with the offset just past it, and whether a line
 * break ended it (only the last one may lack it). A line longer than
 * MAX_LINE_BYTES is given cut, as if ended, and ends the reading.
 */
export async function* linesOf(
  handle: FileHandle,
): AsyncGenerator<{ text: string; end: number; ended: boolean }> {
  let carried: Buffer = Buffer.alloc(0);
  let position = 0;
  const chunks = handle.createReadStream({ highWaterMark: READ_CHUNK_BYTES, autoClose: false });
  for await (const read of chunks as AsyncIterable<Buffer>) {
    const bytes = carried.length > 0 ? Buffer.concat([carried, read]) : read;
    const base = position - carried.length;
    position += read.length;
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
  const prior = new PriorRuns(path);
  let handle: FileHandle | undefined;
  try {
    // Opened without blocking, so a FIFO is refused as a directory or a device is, unread.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const info = await handle.stat();
    if (!info.isFile()) {
      throw new UsageError(
        `--resume ${path} is not a regular file (${nonRegularKind(info)})`,
        `${LEFT_AS_IT_WAS}; give the file that --results wrote`,
      );
    }
    let number = 0;
    for await (const { text, end, ended } of linesOf(handle)) {
      prior.size = end;
      if (++number === 1) {
        if (runLine(text) === undefined) {
          throw new UsageError(
            `--resume ${path} is not a petstore results file: its first line is not the {"run":…} line every run writes first`,
            `${LEFT_AS_IT_WAS}; give the file that --results wrote, or start a new run with --results <new file>`,
          );
        }
      } else if (text !== "" && !readLine(prior, text)) {
        // A last line cut short is dropped (and cut when the run continues); a whole one never is.
        if (!ended) break;
        throw new UsageError(
          `--resume ${path}: line ${number} is not a line of a petstore results file`,
          `${LEFT_AS_IT_WAS}; a results file holds one JSON object per line: fix or delete that line`,
        );
      }
      prior.validBytes = end;
      prior.lastLineEnded = ended;
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `--resume ${path} cannot be read (${whyUnreadable(error)})`,
      "give the results file of the earlier run; a first run takes --results <file>",
    );
  } finally {
    await handle?.close();
  }
  return prior;
}
