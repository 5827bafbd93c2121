/**
 * What the results file of earlier runs says about each row (`--resume`): the
 * last line of a row is its state. Kept compact (a byte and a 64-bit digest per
 * row) so a 100,000-row run resumes in a few hundred kilobytes.
 *
 * Broken lines at the end (a write cut short when the power went) are dropped,
 * and so is whatever they were about to say: at worst a row looks `sending`, and
 * is then treated as `unknown`, never as not sent. A broken line followed by good
 * ones means the file is not a results file, and nothing is sent.
 */
import { createReadStream } from "node:fs";
import { UsageError } from "../errors.js";
import { OUTCOMES, type Outcome } from "./results.js";

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
const DIGEST = /^[0-9a-f]{16}$/;

export class PriorRuns {
  private states = new Uint8Array(1024);
  private digests = new Uint32Array(2048);
  /** The highest row number with a line. */
  maxRow = 0;
  /** Bytes of the file up to the end of its last complete line. */
  validBytes = 0;

  set(row: number, state: PriorState, digest: string | undefined): void {
    if (row >= this.states.length) {
      let size = this.states.length;
      while (size <= row) size *= 2;
      const states = new Uint8Array(size);
      states.set(this.states);
      this.states = states;
      const digests = new Uint32Array(size * 2);
      digests.set(this.digests);
      this.digests = digests;
    }
    // A line without a digest (one written by hand to settle an unknown row) keeps the
    // row's digest; an `invalid` line has none because nothing valid was there.
    const keep = digest === undefined && state !== PriorState.Invalid;
    const hasDigest =
      digest !== undefined || (keep && ((this.states[row] ?? 0) & HAS_DIGEST) !== 0);
    this.states[row] = hasDigest ? state | HAS_DIGEST : state;
    if (digest !== undefined) {
      this.digests[row * 2] = parseInt(digest.slice(0, 8), 16);
      this.digests[row * 2 + 1] = parseInt(digest.slice(8), 16);
    }
    if (row > this.maxRow) this.maxRow = row;
  }

  state(row: number): PriorState {
    return ((this.states[row] ?? 0) & ~HAS_DIGEST) as PriorState;
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

function parseLine(
  text: string,
): { row: number; state: PriorState; digest?: string } | "other" | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (!("row" in record)) return "other";
  const { row, outcome, digest } = record;
  if (typeof row !== "number" || !Number.isSafeInteger(row) || row < 1) return undefined;
  if (typeof outcome !== "string" || !(OUTCOMES as readonly string[]).includes(outcome))
    return undefined;
  if (digest !== undefined && (typeof digest !== "string" || !DIGEST.test(digest)))
    return undefined;
  const parsed: { row: number; state: PriorState; digest?: string } = {
    row,
    state: STATE_OF[outcome as Outcome],
  };
  if (digest !== undefined) parsed.digest = digest;
  return parsed;
}

export async function readPriorRuns(path: string): Promise<PriorRuns> {
  const prior = new PriorRuns();
  let lineNumber = 0;
  /** Bytes of the file before the current chunk, and up to the end of the current line. */
  let chunkStart = 0;
  let offset = 0;
  let pending: Buffer[] = [];
  /** The first broken line, and whether a good line came after it. */
  let bad: number | undefined;
  let corrupt = false;
  const consume = (bytes: Buffer) => {
    lineNumber++;
    const parsed = parseLine(bytes.toString("utf8"));
    if (parsed === undefined) {
      bad ??= lineNumber;
      return;
    }
    if (bad !== undefined) {
      corrupt = true;
      return;
    }
    if (parsed !== "other") prior.set(parsed.row, parsed.state, parsed.digest);
    prior.validBytes = offset;
  };
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: READ_CHUNK_BYTES })) {
      const bytes = chunk as Buffer;
      let start = 0;
      for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, start)) {
        offset = chunkStart + at + 1;
        const piece = bytes.subarray(start, at);
        const line = pending.length > 0 ? Buffer.concat([...pending, piece]) : piece;
        pending = [];
        if (line.length > 0) consume(line);
        else if (bad === undefined) prior.validBytes = offset;
        start = at + 1;
      }
      if (start < bytes.length) pending.push(bytes.subarray(start));
      chunkStart += bytes.length;
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : (code ?? String(error));
    throw new UsageError(`--resume ${path} cannot be read (${why})`);
  }
  const tail = Buffer.concat(pending);
  if (tail.length > 0) {
    offset = chunkStart;
    consume(tail);
  }
  if (corrupt) {
    throw new UsageError(
      `--resume ${path}: line ${bad} is not a line of a petstore results file`,
      "give the file that --results wrote; nothing was sent",
    );
  }
  return prior;
}
