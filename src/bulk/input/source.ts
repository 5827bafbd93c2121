/**
 * The input of a bulk add as something that can be read twice (once to
 * validate every row, once to send): a file is simply reopened; stdin cannot be
 * read twice, so it is first copied to a private temporary file, deleted at the
 * end. Text is decoded as strict UTF-8 (utf8.ts).
 */
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { UsageError } from "../../errors.js";
import { whyUnreadable } from "../../files/file-kind.js";
import { parseCsv } from "./csv.js";
import { detectFormat, type InputFormat } from "./input-format.js";
import { parseJsonArray } from "./json-array.js";
import { parseNdjson } from "./ndjson.js";
import type { InputRecord } from "./input-record.js";
import { decodedChunks } from "./utf8.js";

const HEAD_BYTES = 4096;

export interface InputOptions {
  /** From `--format`; else detected. */
  format?: InputFormat;
  /** CSV only: read the known columns and ignore the others. */
  ignoreUnknownColumns?: boolean;
}

export interface InputSource {
  /** How messages name the input: its path, or `stdin`. */
  readonly label: string;
  readonly format: InputFormat;
  /** A fresh pass over the records (the first pass refuses an input without any: "no rows"). */
  records(): AsyncIterable<InputRecord>;
  /** Removes the copy of stdin, if one was made. */
  dispose(): Promise<void>;
}

export type StdinChunks = () => AsyncIterable<Uint8Array | string>;

async function spoolStdin(stdin: StdinChunks): Promise<{ path: string; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), "petstore-add-"));
  const path = join(dir, "stdin");
  try {
    await pipeline(stdin(), createWriteStream(path, { mode: 0o600 }));
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { path, dir };
}

/** The first characters of the input: enough to tell its format and a CSV header's delimiter. */
async function readHead(path: string): Promise<string> {
  for await (const bytes of createReadStream(path, { end: HEAD_BYTES - 1 })) {
    return (bytes as Buffer).toString("utf8");
  }
  return "";
}

/** `from` is a path or `-` (stdin). */
export async function openInput(
  from: string,
  options: InputOptions,
  stdin: StdinChunks,
): Promise<InputSource> {
  let path = from;
  let spoolDir: string | undefined;
  if (from === "-") {
    ({ path, dir: spoolDir } = await spoolStdin(stdin));
  } else {
    const info = await stat(from).catch((error: unknown) => {
      throw new UsageError(`--from ${from} cannot be read (${whyUnreadable(error)})`);
    });
    if (!info.isFile()) throw new UsageError(`--from ${from} is not a file`);
  }
  const dispose = async () => {
    if (spoolDir !== undefined) await rm(spoolDir, { recursive: true, force: true });
  };
  try {
    const head = await readHead(path).catch((error: unknown) => {
      throw new UsageError(`--from ${from} cannot be read (${whyUnreadable(error)})`);
    });
    const format = options.format ?? detectFormat(from === "-" ? undefined : from, head);
    const label = from === "-" ? "stdin" : from;
    const ignoreUnknownColumns = options.ignoreUnknownColumns === true;
    if (ignoreUnknownColumns && format !== "csv") {
      throw new UsageError(
        `--ignore-unknown-columns applies to CSV; ${label} is read as ${format === "json" ? "a JSON array" : "NDJSON"}, where a field the service does not know makes the row invalid`,
      );
    }
    const parse = { csv: parseCsv, ndjson: parseNdjson, json: parseJsonArray }[format];
    const records = () => parse(decodedChunks(path), { ignoreUnknownColumns, head });
    return { label, format, records, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
