/**
 * Room on disk for the lines of the results file, claimed before it is needed.
 *
 * A row's outcome must reach the file once its request has left: a row whose
 * line cannot be written would be left `sending`, hence unknown, though the
 * service answered it. So the room for that line is claimed before the request
 * leaves, by writing filler where the line will go: when the disk is full, the
 * claim fails and the row is not sent, while the rows already sent write their
 * outcomes into room that is theirs. (Node has no fallocate; writing the room
 * is the portable way to own it, and costs one write per ROOM_STEP bytes.)
 *
 * The filler is spaces with no line break. A run killed with -9 leaves it after
 * the last line, where it reads as a last line cut short: `--resume` drops it
 * and cuts it (prior-runs.ts, results.ts), as it does a line a power loss cut.
 * A run that ends cuts it itself.
 */
import { ftruncateSync, readSync, writeSync } from "node:fs";

/** Room is claimed this many bytes at a time (or what is left, when the disk is nearly full). */
export const ROOM_STEP = 64 * 1024;

const FILLER = Buffer.alloc(ROOM_STEP, 0x20);

export class ResultsRoom {
  /** Where the lines end: the next line is written here. */
  private end: number;
  /** The file's size: the lines, then room claimed and not written yet. */
  private size: number;
  /** Bytes promised beyond `end`: lines waiting to be written, room kept for rows in flight. */
  private promised = 0;

  constructor(
    private readonly fd: number,
    /** The size of the file when it was opened: all lines, no room. */
    end: number,
  ) {
    this.end = end;
    this.size = end;
  }

  /** Whether the lines end with a line break (or there are none). */
  endsWithNewline(): boolean {
    if (this.end === 0) return true;
    const last = Buffer.alloc(1);
    readSync(this.fd, last, 0, 1, this.end - 1);
    return last[0] === 0x0a;
  }

  /**
   * Promises `bytes` more, claiming room on disk first when needed. Throws what
   * the disk said (ENOSPC...) when it has no room for them; nothing is promised then.
   */
  claim(bytes: number): void {
    const needed = this.end + this.promised + bytes;
    if (needed > this.size) this.extend(needed);
    this.promised += bytes;
  }

  /** Gives back room promised and not used (a line shorter than the room kept for it). */
  release(bytes: number): void {
    this.promised = Math.max(0, this.promised - bytes);
  }

  /** Writes `bytes` where the lines end, into room promised for them. */
  write(bytes: Buffer): void {
    let offset = 0;
    while (offset < bytes.length) {
      offset += writeSync(this.fd, bytes, offset, bytes.length - offset, this.end + offset);
    }
    this.end += bytes.length;
    if (this.end > this.size) this.size = this.end;
    this.release(bytes.length);
  }

  /** Cuts the room not used, so that the file ends with its last line. */
  trim(): void {
    if (this.size === this.end) return;
    try {
      ftruncateSync(this.fd, this.end);
      this.size = this.end;
    } catch {
      // Left as room: a resume reads it as a last line cut short, and cuts it.
    }
  }

  /** Claims room up to `needed` bytes, a step ahead when the disk allows. */
  private extend(needed: number): void {
    try {
      this.fill(Math.max(needed, this.size + ROOM_STEP));
    } catch {
      // A nearly full disk may still have room for what is needed now; if not, this throws.
      this.fill(needed);
    }
  }

  private fill(target: number): void {
    while (this.size < target) {
      const length = Math.min(FILLER.length, target - this.size);
      this.size += writeSync(this.fd, FILLER, 0, length, this.size);
    }
  }
}
