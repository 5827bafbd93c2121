/**
 * The input as files on disk: strict UTF-8 with the line of a bad byte, wherever
 * it sits against the read chunks, and inputs that hold no rows.
 */
import fc from "fast-check";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openInput, type InputOptions } from "../../src/bulk/input/source.js";
import { firstPass } from "../../src/bulk/rows.js";
import { UsageError } from "../../src/errors.js";
import type { IO } from "../../src/io.js";
import { InputFormatError } from "../../src/bulk/input/input-record.js";
import { CHUNK_BYTES, decodedChunks, firstInvalidByte } from "../../src/bulk/input/utf8.js";
import { tempDir } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir()));
afterAll(() => cleanup());

const noStdin = async function* () {};
let files = 0;

async function fileOf(bytes: Buffer | string): Promise<string> {
  const path = join(dir, `input-${++files}.csv`);
  await writeFile(path, bytes);
  return path;
}

/** Reads the whole text of a file as the bulk add does; the error it stops with, if any. */
async function readAll(path: string): Promise<{ text: string; error?: InputFormatError }> {
  let text = "";
  try {
    for await (const chunk of decodedChunks(path)) text += chunk;
  } catch (error) {
    if (error instanceof InputFormatError) return { text, error };
    throw error;
  }
  return { text };
}

async function badLine(bytes: Buffer): Promise<number | undefined> {
  return (await readAll(await fileOf(bytes))).error?.line;
}

const ascii = (text: string) => Buffer.from(text, "utf8");

/** `lines` lines of ASCII text padded so the bytes up to the bad one number exactly `offset`. */
function withBadByteAt(offset: number, lines: number, bad: Buffer): Buffer {
  const head = "x\n".repeat(lines - 1);
  const pad = offset - head.length;
  if (pad < 0) throw new Error("offset too small for the lines");
  return Buffer.concat([ascii(head + "y".repeat(pad)), bad, ascii("z\nafter\n")]);
}

describe("UTF-8 decoding", () => {
  it("names the line of a bad byte on the first, a middle and the last line", async () => {
    expect(
      await badLine(Buffer.concat([ascii("na"), Buffer.from([0xff]), ascii("me\nA,1\n")])),
    ).toBe(1);
    expect(
      await badLine(
        Buffer.concat([ascii("name\nA,1\nB,2\nC"), Buffer.from([0xc3]), ascii(",3\nD,4\n")]),
      ),
    ).toBe(4);
    expect(await badLine(Buffer.concat([ascii("name\nA,1\nB,2"), Buffer.from([0xe2, 0x82])]))).toBe(
      3,
    );
  });

  it("names the line of a bad byte one before, at and one after the read chunk size", async () => {
    for (const offset of [CHUNK_BYTES - 1, CHUNK_BYTES, CHUNK_BYTES + 1]) {
      // A line break right before the bad byte, so a line counted from the chunk start is wrong.
      const lines = 2000;
      const bytes = withBadByteAt(offset, lines, Buffer.from([0xff]));
      expect(await badLine(bytes), `offset ${offset}`).toBe(lines);
    }
  });

  it("names the line of a sequence cut short across the chunk boundary", async () => {
    // A three-byte lead, one continuation byte, then ASCII: invalid wherever the cut falls.
    for (const offset of [CHUNK_BYTES - 2, CHUNK_BYTES - 1, CHUNK_BYTES]) {
      const bytes = withBadByteAt(offset, 300, Buffer.from([0xe2, 0x82]));
      expect(await badLine(bytes), `offset ${offset}`).toBe(300);
    }
    // A line break right after the lead byte: still the line of the lead byte.
    const cut = Buffer.concat([
      ascii("a\n".repeat(10) + "b".repeat(CHUNK_BYTES - 21)),
      Buffer.from([0xf0, 0x9f]),
      ascii("\nc\n"),
    ]);
    expect(cut.indexOf(0xf0)).toBe(CHUNK_BYTES - 1);
    expect(await badLine(cut)).toBe(11);
  });

  it("decodes characters that straddle the chunk boundary, and drops only a leading byte-order mark", async () => {
    for (const offset of [CHUNK_BYTES - 3, CHUNK_BYTES - 2, CHUNK_BYTES - 1]) {
      const text = `\uFEFF${"a".repeat(offset - 3)}🐕é\n\uFEFFx\n`;
      const { text: read, error } = await readAll(await fileOf(text));
      expect(error).toBeUndefined();
      expect(read).toBe(text.slice(1));
    }
  });

  it("names the line of a bad byte after 100,000 rows", async () => {
    let text = "name,categoryId\n";
    for (let i = 1; i <= 100_000; i++) text += `pet-${i},${i % 7}\n`;
    const bytes = Buffer.concat([
      ascii(text + "bad"),
      Buffer.from([0xc0, 0x80]),
      ascii(",1\nok,2\n"),
    ]);
    expect(await badLine(bytes)).toBe(100_002);
  });

  it("says which byte is wrong and how to fix it", async () => {
    const { error } = await readAll(
      await fileOf(Buffer.from([0x61, 0x0a, 0x62, 0xed, 0xa0, 0x80])),
    );
    expect(error?.message).toBe(
      "line 2: the input is not UTF-8 text (byte 0xED); save it as UTF-8 and try again",
    );
  });
});

describe("UTF-16", () => {
  it("is named as such, with how to save the file instead", async () => {
    for (const bom of [
      [0xff, 0xfe],
      [0xfe, 0xff],
    ]) {
      const text = Buffer.from("name\tcategoryId\r\nRex\t1\r\n", "utf16le");
      const { error } = await readAll(await fileOf(Buffer.concat([Buffer.from(bom), text])));
      expect(error?.message).toBe(
        'line 1: the input is UTF-16 text (as Excel\'s "Unicode Text"); save it as UTF-8 ("CSV UTF-8") and try again',
      );
    }
  });
});

describe("finding the bad byte", () => {
  const strict = new TextDecoder("utf-8", { fatal: true });
  const decodes = (bytes: Uint8Array) => {
    try {
      strict.decode(bytes);
      return true;
    } catch {
      return false;
    }
  };
  // The bytes at the edges of the ranges of Unicode's Table 3-7.
  const tails = [0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0];

  it("agrees with the strict decoder on every first byte followed by up to three edge bytes", () => {
    // Every first byte alone; those that may begin a sequence, and two others, followed by edge bytes.
    let sequences: number[][] = [];
    for (let lead = 0; lead < 256; lead++) sequences.push([lead]);
    let longer = sequences.filter(([lead]) => lead! >= 0xc0 || lead === 0x41 || lead === 0x80);
    for (let more = 1; more <= 3; more++) {
      longer = longer.flatMap((s) => tails.map((t) => [...s, t]));
      sequences = sequences.concat(longer);
    }
    for (const sequence of sequences) {
      const bytes = Buffer.from(sequence);
      const at = firstInvalidByte(bytes);
      if ((at === -1) !== decodes(bytes)) expect.fail(`disagree on ${bytes.toString("hex")}`);
      if (at !== -1 && !decodes(bytes.subarray(0, at)))
        expect.fail(`prefix of ${bytes.toString("hex")}`);
    }
  });

  it("finds it among text of every kind, everything before it decoding", () => {
    const part = fc.oneof(
      fc.string({ unit: "binary", maxLength: 4 }),
      fc.constantFrom(...tails, 0xe0, 0xed, 0xf0, 0xf4, 0xff),
    );
    fc.assert(
      fc.property(fc.array(part), (parts) => {
        const bytes = Buffer.concat(
          parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from([p]))),
        );
        const at = firstInvalidByte(bytes);
        expect(at === -1).toBe(decodes(bytes));
        if (at !== -1) expect(decodes(bytes.subarray(0, at))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe("an input without rows", () => {
  /** The first pass's count of rows (it refuses an input without any). */
  async function rowsOf(name: string, bytes: Buffer | string, options: InputOptions = {}) {
    const path = join(dir, name);
    await writeFile(path, bytes);
    const source = await openInput(path, options, noStdin);
    try {
      const io = { stderr: { write: () => true } } as unknown as IO;
      return (await firstPass(source, undefined, { retryUnknown: false }, io)).rows;
    } finally {
      await source.dispose();
    }
  }

  it("is a usage error saying so, in every format", async () => {
    const empty: Array<[string, Buffer | string, InputOptions?]> = [
      ["zero.csv", ""],
      ["bom.csv", "\uFEFF"],
      ["blank.csv", "\uFEFF\r\n\r\n  \n"],
      ["header.csv", "\uFEFFname;categoryId;status\r\n"],
      ["header-blank.csv", "name,categoryId\n\n\n"],
      ["header-empty-cells.csv", "name;categoryId\r\n;\r\n ; \r\n"],
      ["zero.ndjson", ""],
      ["blank.ndjson", "\n \r\n"],
      ["empty.json", "[]"],
      ["spaced.json", "\uFEFF [\n ]\n"],
      ["zero.json", ""],
      ["zero.data", "", { format: "json" }],
    ];
    for (const [name, bytes, options] of empty) {
      const error = await rowsOf(name, bytes, options).catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toBe(
        `${join(dir, name)} has no rows; nothing was sent`,
      );
      expect((error as UsageError).exitCode).toBe(2);
    }
  });

  it("is not a file with one row", async () => {
    expect(await rowsOf("one.csv", "name,categoryId\nRex,1")).toBe(1);
    expect(await rowsOf("one.json", '[{"name":"Rex","categoryId":1}]')).toBe(1);
  });
});
