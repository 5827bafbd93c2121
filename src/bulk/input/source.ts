/**
 * The input of a bulk add as something that can be read twice (once to
 * validate every row, once to send): a file is simply reopened; stdin cannot be
 * read twice, so it is first copied to a private temporary file, deleted at the
 * end. Text is decoded as strict UTF-8 in 64 KiB chunks (a byte-order mark is dropped).
 */
import { closeSync, createWriteStream, openSync, readSync } from "node:fs";
import { mkdtemp, open, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { UsageError } from "../../errors.js";
import { detectFormat, type InputFormat } from "./format.js";
import { InputFormatError } from "./records.js";

const CHUNK_BYTES = 64 * 1024;
const HEAD_BYTES = 4096;

export interface InputSource {
  /** How messages name the input: its path, or `stdin`. */
  readonly label: string;
  readonly format: InputFormat;
  /** A fresh pass over the text. */
  chunks(): Iterable<string>;
  /** Removes the copy of stdin, if one was made. */
  dispose(): Promise<void>;
}

export type StdinChunks = () => AsyncIterable<Uint8Array | string>;

async function spoolStdin(stdin: StdinChunks): Promise<{ path: string; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), "petstore-add-"));
  const path = join(dir, "stdin");
  const out = createWriteStream(path, { mode: 0o600 });
  try {
    for await (const chunk of stdin()) {
      if (!out.write(chunk)) await once(out, "drain");
    }
    out.end();
    await once(out, "close");
  } catch (error) {
    out.destroy();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { path, dir };
}

async function readHead(path: string): Promise<string> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

/**
 * Read synchronously: the input is a regular file (stdin was copied to one), a
 * 64 KiB read takes microseconds, and rows then come without a promise each.
 */
function* decodedChunks(path: string): Generator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let lines = 1;
  const count = (text: string) => {
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
    return text;
  };
  const notUtf8 = () =>
    new InputFormatError("the input is not UTF-8 text (save it as UTF-8 and try again)", lines);
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      const bytesRead = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      let text;
      try {
        text = decoder.decode(buffer.subarray(0, bytesRead), { stream: true });
      } catch {
        throw notUtf8();
      }
      if (text !== "") yield count(text);
    }
  } finally {
    closeSync(fd);
  }
  let rest;
  try {
    rest = decoder.decode();
  } catch {
    throw notUtf8();
  }
  if (rest !== "") yield rest;
}

/** `from` is a path or `-` (stdin). */
export async function openInput(
  from: string,
  format: InputFormat | undefined,
  stdin: StdinChunks,
): Promise<InputSource> {
  let path = from;
  let spoolDir: string | undefined;
  if (from === "-") {
    ({ path, dir: spoolDir } = await spoolStdin(stdin));
  } else {
    const info = await stat(from).catch((error: NodeJS.ErrnoException) => {
      const why = error.code === "ENOENT" ? "no such file" : (error.code ?? error.message);
      throw new UsageError(`--from ${from} cannot be read (${why})`);
    });
    if (!info.isFile()) throw new UsageError(`--from ${from} is not a file`);
  }
  const dispose = async () => {
    if (spoolDir !== undefined) await rm(spoolDir, { recursive: true, force: true });
  };
  try {
    const head = await readHead(path).catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`--from ${from} cannot be read (${error.code ?? error.message})`);
    });
    const chosen = format ?? detectFormat(from === "-" ? undefined : from, head);
    return {
      label: from === "-" ? "stdin" : from,
      format: chosen,
      chunks: () => decodedChunks(path),
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}
