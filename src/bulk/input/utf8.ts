/**
 * A file's text as strict UTF-8, in chunks of CHUNK_BYTES read synchronously (the
 * input is a regular file; stdin was copied to one), a leading byte-order mark
 * dropped. Each read is cut after its last whole character and the few bytes of
 * a character it splits go in front of the next read, so every piece is decoded
 * on its own and a bad byte is found at its place: its line is counted only then,
 * by reading the file again up to it (nothing is counted while all is well).
 */
import { closeSync, openSync, readSync } from "node:fs";
import { InputFormatError } from "./input-record.js";

export const CHUNK_BYTES = 64 * 1024;

/** Where the first ill-formed sequence starts (Unicode Table 3-7); -1 when all is well-formed. */
export function firstInvalidByte(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) length = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      if (b === 0xe0) low = 0xa0;
      else if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      if (b === 0xf0) low = 0x90;
      else if (b === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k < length; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? low : 0x80) || c > (k === 1 ? high : 0xbf)) return i;
    }
    i += length;
  }
  return -1;
}

/** How many bytes at the end of `bytes` begin a character that goes on past it (0 to 3). */
function splitTail(bytes: Uint8Array, end: number): number {
  for (let back = 1; back <= 3 && back <= end; back++) {
    const b = bytes[end - back]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

/** Starts with the byte-order mark of UTF-16, little- or big-endian. */
function isUtf16(bytes: Uint8Array): boolean {
  return (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
}

/** 1-based line of the byte at `offset`: one more than the line feeds before it. */
function lineAt(fd: number, offset: number): number {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let line = 1;
  for (let position = 0; position < offset;) {
    const bytesRead = readSync(fd, buffer, 0, Math.min(CHUNK_BYTES, offset - position), position);
    if (bytesRead === 0) break;
    const read = buffer.subarray(0, bytesRead);
    for (let at = read.indexOf(10); at !== -1; at = read.indexOf(10, at + 1)) line++;
    position += bytesRead;
  }
  return line;
}

function notUtf8(fd: number, offset: number, byte: number | undefined): InputFormatError {
  const which = byte === undefined ? "" : ` (byte 0x${byte.toString(16).toUpperCase()})`;
  return new InputFormatError(
    `the input is not UTF-8 text${which}; save it as UTF-8 and try again`,
    lineAt(fd, offset),
  );
}

export function* decodedChunks(path: string): Generator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const fd = openSync(path, "r");
  try {
    // Room for a character's first bytes carried over from the previous read.
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES + 3);
    let carried = 0;
    /** File offset of buffer[0]. */
    let offset = 0;
    for (;;) {
      const bytesRead = readSync(fd, buffer, carried, CHUNK_BYTES, null);
      const end = carried + bytesRead;
      const tail = bytesRead === 0 ? 0 : splitTail(buffer, end);
      const piece = buffer.subarray(0, end - tail);
      let text;
      try {
        text = decoder.decode(piece);
      } catch {
        if (offset === 0 && isUtf16(piece)) {
          throw new InputFormatError(
            'the input is UTF-16 text (as Excel\'s "Unicode Text"); save it as UTF-8 ("CSV UTF-8") and try again',
            1,
          );
        }
        const at = firstInvalidByte(piece);
        throw notUtf8(fd, offset + Math.max(at, 0), at === -1 ? undefined : piece[at]);
      }
      if (offset === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text !== "") yield text;
      if (bytesRead === 0) break;
      buffer.copyWithin(0, end - tail, end);
      offset += end - tail;
      carried = tail;
    }
  } finally {
    closeSync(fd);
  }
}
