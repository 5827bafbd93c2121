/**
 * A file's text as strict UTF-8: the platform's decoder (`TextDecoder` with `fatal`,
 * which also drops a leading byte-order mark) on the file's chunks, a character
 * split between two chunks carried by the decoder (`stream`).
 *
 * The decoder's error does not say where the bad byte is, and a person needs its
 * line. Only when a chunk was refused is the place found (firstInvalidByte), then
 * the line counted by reading the file again up to it.
 */
import { createReadStream } from "node:fs";
import { InputFormatError } from "./input-record.js";

export const CHUNK_BYTES = 64 * 1024;

/**
 * Where the first ill-formed sequence starts, as the strict decoder sees it; -1
 * when there is none. The replacing decoder writes U+FFFD at each such place, so
 * the first U+FFFD that is not one in the bytes themselves is it.
 */
export function firstInvalidByte(bytes: Uint8Array): number {
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  let at = 0;
  let from = 0;
  for (let i = text.indexOf("\uFFFD"); i !== -1; i = text.indexOf("\uFFFD", from)) {
    at += Buffer.byteLength(text.slice(from, i));
    if (bytes[at] !== 0xef || bytes[at + 1] !== 0xbf || bytes[at + 2] !== 0xbd) return at;
    at += 3;
    from = i + 1;
  }
  return -1;
}

/** 1-based line of the byte at `offset`: one more than the line feeds before it. */
async function lineAt(path: string, offset: number): Promise<number> {
  let line = 1;
  if (offset === 0) return line;
  for await (const bytes of createReadStream(path, { end: offset - 1 }) as AsyncIterable<Buffer>) {
    for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) line++;
  }
  return line;
}

/** `bytes`, at `offset` of the file, were refused by the decoder. */
async function notUtf8(path: string, offset: number, bytes: Buffer): Promise<InputFormatError> {
  // UTF-16 (Excel's "Unicode Text") starts with its byte-order mark, little- or big-endian.
  const bom = bytes.subarray(0, 2).toString("hex");
  if (offset === 0 && (bom === "fffe" || bom === "feff")) {
    return new InputFormatError(
      'the input is UTF-16 text (as Excel\'s "Unicode Text"); save it as UTF-8 ("CSV UTF-8") and try again',
      1,
    );
  }
  const at = firstInvalidByte(bytes);
  return new InputFormatError(
    `the input is not UTF-8 text (byte 0x${bytes[at]!.toString(16).toUpperCase()}); save it as UTF-8 and try again`,
    await lineAt(path, offset + at),
  );
}

export async function* decodedChunks(path: string): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  /** The last bytes read that may begin a character the chunks split (the decoder carries them). */
  let carried = Buffer.alloc(0);
  let offset = 0;
  const chunks = createReadStream(path, { highWaterMark: CHUNK_BYTES }) as AsyncIterable<Buffer>;
  for await (const bytes of chunks) {
    let text: string;
    try {
      text = decoder.decode(bytes, { stream: true });
    } catch {
      throw await notUtf8(path, offset - carried.length, Buffer.concat([carried, bytes]));
    }
    if (text !== "") yield text;
    offset += bytes.length;
    // A character is at most 4 bytes: its first byte is among the last 3 read, or it is whole.
    carried = Buffer.from(bytes.subarray(Math.max(0, bytes.length - 3)));
    while (carried.length > 0 && (carried[0]! & 0xc0) === 0x80) carried = carried.subarray(1);
  }
  try {
    decoder.decode();
  } catch {
    throw await notUtf8(path, offset - carried.length, carried);
  }
}
