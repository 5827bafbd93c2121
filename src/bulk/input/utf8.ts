/**
 * A file's text as strict UTF-8: the platform's decoder (`TextDecoder` with `fatal`,
 * which also drops a leading byte-order mark) on chunks of CHUNK_BYTES read
 * synchronously (the input is a regular file; stdin was copied to one), a
 * character split between two reads carried by the decoder (`stream`).
 *
 * The decoder's error does not say where the bad byte is, and a person needs its
 * line. Only when a read was refused is the place found: by decoding ever
 * shorter prefixes of that read (with the bytes the decoder carried into it),
 * then the line counted by reading the file again up to it.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { InputFormatError } from "./input-record.js";

export const CHUNK_BYTES = 64 * 1024;

const decodes = (bytes: Uint8Array, stream: boolean): boolean => {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream });
    return true;
  } catch {
    return false;
  }
};

/** Where the first ill-formed sequence starts, as the strict decoder sees it; -1 when there is none. */
export function firstInvalidByte(bytes: Uint8Array): number {
  if (decodes(bytes, false)) return -1;
  const lead = (end: number) => {
    let at = end;
    while (at > 0 && (bytes[at]! & 0xc0) === 0x80) at--;
    return at;
  };
  // All well-formed but cut short at the end: the last character's first byte.
  if (decodes(bytes, true)) return lead(bytes.length - 1);
  // The shortest prefix the decoder refuses ends with the byte it could not take.
  let low = 0;
  let high = bytes.length;
  while (high - low > 1) {
    const middle = (low + high) >>> 1;
    if (decodes(bytes.subarray(0, middle), true)) low = middle;
    else high = middle;
  }
  const refused = high - 1;
  // That byte either stands alone, or cuts short a character begun before it.
  const start = refused > 0 ? lead(refused - 1) : 0;
  const first = bytes[start]!;
  const length = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
  return start < refused && refused - start < length ? start : refused;
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

/** `bytes`, read at `offset` of the file, were refused by the decoder. */
function notUtf8(fd: number, offset: number, bytes: Buffer): InputFormatError {
  // UTF-16 (Excel's "Unicode Text") starts with its byte-order mark, little- or big-endian.
  const [first, second] = bytes;
  if (
    offset === 0 &&
    ((first === 0xff && second === 0xfe) || (first === 0xfe && second === 0xff))
  ) {
    return new InputFormatError(
      'the input is UTF-16 text (as Excel\'s "Unicode Text"); save it as UTF-8 ("CSV UTF-8") and try again',
      1,
    );
  }
  const at = firstInvalidByte(bytes);
  return new InputFormatError(
    `the input is not UTF-8 text (byte 0x${bytes[at]!.toString(16).toUpperCase()}); save it as UTF-8 and try again`,
    lineAt(fd, offset + at),
  );
}

export function* decodedChunks(path: string): Generator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    /** The last bytes read that may begin a character the read split (the decoder carries them). */
    let carried = Buffer.alloc(0);
    for (let offset = 0; ;) {
      const read = readSync(fd, buffer, 0, CHUNK_BYTES, offset);
      const bytes = buffer.subarray(0, read);
      let text: string;
      try {
        text = decoder.decode(bytes, { stream: read > 0 });
      } catch {
        throw notUtf8(fd, offset - carried.length, Buffer.concat([carried, bytes]));
      }
      if (text !== "") yield text;
      if (read === 0) return;
      offset += read;
      // A character is at most 4 bytes: its first byte is among the last 3 read, or it is whole.
      carried = Buffer.from(bytes.subarray(Math.max(0, read - 3)));
      while (carried.length > 0 && (carried[0]! & 0xc0) === 0x80) carried = carried.subarray(1);
    }
  } finally {
    closeSync(fd);
  }
}
