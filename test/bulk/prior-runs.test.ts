/**
 * Reading a results file for --resume, at the sizes where it breaks: around the
 * read chunk, across several chunks, and at 200,000 rows. Resuming only ever appends.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  PriorRuns,
  PriorState,
  READ_CHUNK_BYTES,
  readPriorRuns,
} from "../../src/bulk/prior-runs.js";
import { ResultsWriter, type Outcome } from "../../src/bulk/results.js";
import { EXIT, UsageError } from "../../src/errors.js";
import { tempDir } from "./helpers.js";
import { HANG_MS } from "../limits.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir()));
afterAll(() => cleanup());

const header = { input: "pets.csv", format: "csv", startedAt: "2030-01-01T00:00:00.000Z" };
const RUN_LINE = `{"run":{"input":"pets.csv","format":"csv","startedAt":"2030-01-01T00:00:00.000Z"}}\n`;
const DIGEST = "0123456789abcdef";
const STATE: Record<Outcome, PriorState> = {
  sending: PriorState.Sending,
  added: PriorState.Added,
  invalid: PriorState.Invalid,
  failed: PriorState.Failed,
  unknown: PriorState.Unknown,
};

/** The shortest line lineOfLength() can make. */
const MIN_LINE = 100;

/**
 * A results line of exactly `bytes` bytes (newline included), padded in its error
 * message; `wide` pads with 2-byte characters, so a character can straddle a chunk too.
 */
function lineOfLength(row: number, outcome: Outcome, bytes: number, wide: boolean): string {
  const start = `{"row":${row},"line":${row + 1},"outcome":"${outcome}","error":{"message":"`;
  const end = `"},"digest":"${DIGEST}"}\n`;
  let pad = bytes - Buffer.byteLength(start + end);
  if (pad < 0) throw new Error(`a line of row ${row} cannot be ${bytes} bytes`);
  const twoByte = wide ? pad >> 1 : 0;
  pad -= twoByte * 2;
  return start + "é".repeat(twoByte) + "x".repeat(pad) + end;
}

interface Sample {
  /** Bytes of the complete lines (run line included). */
  complete: number;
  /** What follows the last complete line. */
  tail: "none" | "torn" | "whole without newline";
  tornBytes: number;
  lengths: number[];
  outcomes: Outcome[];
  wide: boolean;
}

/** The file of a sample, with the state each row must be read as. */
function fileOf(sample: Sample): { text: string; states: Map<number, PriorState>; valid: number } {
  let text = RUN_LINE;
  const states = new Map<number, PriorState>();
  let row = 0;
  const add = (bytes: number) => {
    row++;
    const outcome = sample.outcomes[row % sample.outcomes.length]!;
    text += lineOfLength(row, outcome, bytes, sample.wide);
    states.set(row, STATE[outcome]);
  };
  // What is left is always 0 or at least MIN_LINE: the last line is sized to end at `complete`.
  for (let at = 0, left = sample.complete - text.length; left > 0; at++) {
    const next = sample.lengths[at % sample.lengths.length]!;
    add(left < next + MIN_LINE ? left : next);
    left = sample.complete - Buffer.byteLength(text);
  }
  const valid = Buffer.byteLength(text);
  if (sample.tail === "torn") {
    const line = lineOfLength(row + 1, "added", MIN_LINE + sample.tornBytes, sample.wide);
    text += line.slice(0, Math.max(1, Math.min(line.length - 2, sample.tornBytes)));
  } else if (sample.tail === "whole without newline") {
    row++;
    text += lineOfLength(row, "added", MIN_LINE + sample.tornBytes, sample.wide).trimEnd();
    states.set(row, PriorState.Added);
    return { text, states, valid: Buffer.byteLength(text) };
  }
  return { text, states, valid };
}

const samples = fc.record({
  complete: fc
    .tuple(
      fc.integer({ min: 1, max: 3 }),
      fc.oneof(fc.integer({ min: -3, max: 3 }), fc.integer({ min: -400, max: 400 })),
    )
    .map(([chunks, delta]) => chunks * READ_CHUNK_BYTES + delta),
  tail: fc.constantFrom("none", "torn", "whole without newline"),
  tornBytes: fc.integer({ min: 1, max: 300 }),
  lengths: fc.array(fc.integer({ min: MIN_LINE, max: 400 }), { minLength: 1, maxLength: 8 }),
  outcomes: fc.array(fc.constantFrom<Outcome>("sending", "added", "failed", "unknown"), {
    minLength: 1,
    maxLength: 4,
  }),
  wide: fc.boolean(),
}) as fc.Arbitrary<Sample>;

/** Resumes `path` as a run would, appending one line; returns the bytes of the file after. */
async function resume(prior: PriorRuns): Promise<Buffer> {
  const { path } = prior;
  const writer = ResultsWriter.open({ path, header, concurrency: 1, resume: prior });
  writer.record({ row: 1, line: 2, outcome: "added", id: 1n, digest: DIGEST });
  await writer.close();
  return readFile(path);
}

describe("--resume reads every complete line, whatever the chunk boundaries", () => {
  it("counts every complete line around the read chunk, and resuming only appends", async () => {
    const path = join(dir, "property.results");
    await fc.assert(
      fc.asyncProperty(samples, async (sample) => {
        const { text, states, valid } = fileOf(sample);
        const bytes = Buffer.from(text);
        await writeFile(path, bytes);
        const prior = await readPriorRuns(path);
        expect(prior.validBytes).toBe(valid);
        expect(prior.maxRow).toBe(states.size);
        for (const [row, state] of states) expect(prior.state(row)).toBe(state);

        const after = await resume(prior);
        expect(after.subarray(0, valid).equals(bytes.subarray(0, valid))).toBe(true);
        const again = await readPriorRuns(path);
        expect(again.state(1)).toBe(PriorState.Added);
        for (const [row, state] of states) if (row > 1) expect(again.state(row)).toBe(state);
        await rm(path);
      }),
      { numRuns: 80, seed: 10 },
    );
  });

  it.each([-1, 0, 1])(
    "keeps every line of a file of one chunk plus %i bytes (its last line ends before, at or after the boundary)",
    async (delta) => {
      const path = join(dir, `exact${delta}.results`);
      const size = READ_CHUNK_BYTES + delta;
      // Lines of 300 bytes: the line that holds the boundary straddles it.
      const { text, valid } = fileOf({
        complete: size,
        tail: "none",
        tornBytes: 1,
        lengths: [300],
        outcomes: ["added"],
        wide: false,
      });
      expect(Buffer.byteLength(text)).toBe(size);
      await writeFile(path, text);
      const prior = await readPriorRuns(path);
      expect(prior.validBytes).toBe(valid);
      const after = await resume(prior);
      expect(after.subarray(0, size).toString()).toBe(text);
    },
  );

  it("reads 200,000 rows (400,001 lines, several hundred chunks) and resumes without losing one", async () => {
    const path = join(dir, "large.results");
    const rows = 200_000;
    const parts: string[] = [RUN_LINE];
    for (let row = 1; row <= rows; row++) {
      const digest = row.toString(16).padStart(16, "0");
      parts.push(
        `{"row":${row},"line":${row + 1},"outcome":"sending","digest":"${digest}"}\n`,
        `{"row":${row},"line":${row + 1},"outcome":"added","id":${row},"digest":"${digest}"}\n`,
      );
    }
    const torn = `{"row":${rows + 1},"line":${rows + 2},"outcome":"sen`;
    const complete = Buffer.from(parts.join(""));
    expect(complete.length).toBeGreaterThan(200 * READ_CHUNK_BYTES);
    await writeFile(path, Buffer.concat([complete, Buffer.from(torn)]));
    const digestOf = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

    const prior = await readPriorRuns(path);
    expect(prior.validBytes).toBe(complete.length);
    expect(prior.maxRow).toBe(rows);
    for (let row = 1; row <= rows; row++) {
      if (prior.state(row) !== PriorState.Added) expect.fail(`row ${row} is not added`);
    }
    expect(prior.sameContent(rows, rows.toString(16).padStart(16, "0"))).toBe(true);

    const after = await resume(prior);
    expect(digestOf(after.subarray(0, complete.length))).toBe(digestOf(complete));
    expect(after.subarray(complete.length).toString()).toMatch(/^\{"run":.*\n\{"row":1,.*\n$/);
    const again = await readPriorRuns(path);
    expect(again.validBytes).toBe(after.length);
    expect(again.maxRow).toBe(rows);
  });
});

/** The UsageError readPriorRuns refuses `path` with; the file must be left as it was. */
async function refusal(path: string): Promise<UsageError> {
  const before = await stat(path).catch(() => undefined);
  const bytes = before?.isFile() ? await readFile(path) : undefined;
  let timer: NodeJS.Timeout | undefined;
  const error = await Promise.race([
    readPriorRuns(path).then(
      () => expect.fail(`${path} was accepted`),
      (e: unknown) => e,
    ),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error("still reading")), HANG_MS / 2);
    }),
  ]).finally(() => clearTimeout(timer));
  expect(error).toBeInstanceOf(UsageError);
  expect((error as UsageError).exitCode).toBe(EXIT.USAGE);
  expect((error as UsageError).message).toContain(path);
  if (bytes !== undefined) expect((await readFile(path)).equals(bytes)).toBe(true);
  return error as UsageError;
}

describe("which files --resume accepts", () => {
  it.each([
    ["an input CSV", "name,categoryId,status\nRex,1,available\nTom,2,sold\n"],
    ["notes", "Call the shelter on Monday.\nAsk about the cats.\n"],
    ["notes without a last newline", "Call the shelter on Monday."],
    ["blank lines", "\n\n"],
    ["spaces", "   "],
    ["NDJSON pets", '{"name":"Kit","categoryId":3}\n{"name":"Max","categoryId":4}\n'],
    [
      "result lines without the run line",
      `{"row":1,"line":2,"outcome":"added","id":5,"digest":"${DIGEST}"}\n`,
    ],
    ["a run line cut short", '{"run":{"input":"pets.c'],
    ["a run line that is not an object", '{"run":"pets.csv"}\n'],
  ])("refuses %s: not a results file, left byte for byte", async (name, text) => {
    const path = join(dir, `other-${name.replaceAll(" ", "-")}.txt`);
    await writeFile(path, text);
    const error = await refusal(path);
    expect(error.message).toMatch(/is not a petstore results file/);
    expect(error.hint).toMatch(/--results/);
  });

  it("refuses a file whose only broken line is complete (ends with a newline): it is never cut", async () => {
    const path = join(dir, "broken-last.results");
    await writeFile(
      path,
      `${RUN_LINE}{"row":1,"line":2,"outcome":"added","id":5,"digest":"${DIGEST}"}\n{"row":2,"li\n`,
    );
    const error = await refusal(path);
    expect(error.message).toContain("line 3 is not a line of a petstore results file");
  });

  it("refuses a directory and a FIFO without reading them", async () => {
    const fifo = join(dir, "fifo.results");
    execFileSync("mkfifo", [fifo]);
    expect((await refusal(fifo)).message).toMatch(/not a regular file/);
    expect((await refusal(dir)).message).toMatch(/not a regular file/);
  });

  it("refuses a missing file (a mistyped name must not send every row again)", async () => {
    const error = await refusal(join(dir, "missing.results"));
    expect(error.message).toMatch(/cannot be read \(no such file\)/);
  });

  it("takes a 0-byte file as a run that wrote nothing: a fresh start", async () => {
    const path = join(dir, "empty.results");
    await writeFile(path, "");
    const prior = await readPriorRuns(path);
    expect([prior.validBytes, prior.maxRow]).toEqual([0, 0]);
  });

  it("accepts a file that is only its run line, with or without the newline", async () => {
    const path = join(dir, "run-only.results");
    for (const text of [RUN_LINE, RUN_LINE.trimEnd()]) {
      await writeFile(path, text);
      expect((await readPriorRuns(path)).validBytes).toBe(Buffer.byteLength(text));
    }
  });
});

describe("the ids of rows added before (for -q and --json of a resumed run)", () => {
  it("keeps each added row's id exactly, int64 limits included, and only while its last line is added", async () => {
    const path = join(dir, "ids.results");
    await writeFile(
      path,
      RUN_LINE +
        `{"row":1,"line":2,"outcome":"added","id":9223372036854775807,"digest":"${DIGEST}"}\n` +
        `{"row":2,"line":3,"outcome":"added","id":9007199254740993,"digest":"${DIGEST}"}\n` +
        `{"row":3,"line":4,"outcome":"added","id":-9223372036854775808}\n` +
        `{"row":4,"line":5,"outcome":"added","id":12,"digest":"${DIGEST}"}\n` +
        `{"row":4,"line":5,"outcome":"sending","digest":"${DIGEST}"}\n` +
        `{"row":5,"outcome":"added"}\n` +
        `{"row":6,"line":7,"outcome":"unknown","error":{"message":"m"},"digest":"${DIGEST}"}\n` +
        `{"row":6,"outcome":"added","id":77}\n`,
    );
    const prior = await readPriorRuns(path);
    expect([1, 2, 3, 4, 5, 6, 7].map((row) => prior.id(row))).toEqual([
      9223372036854775807n,
      9007199254740993n,
      -9223372036854775808n,
      undefined,
      undefined,
      77n,
      undefined,
    ]);
    expect(prior.state(6)).toBe(PriorState.Added);
    expect(prior.sameContent(6, DIGEST)).toBe(true);
  });

  it("refuses an added line whose id is not an int64", async () => {
    const path = join(dir, "bad-id.results");
    for (const id of ['"12"', "1.5", "9223372036854775808", "true"]) {
      await writeFile(path, RUN_LINE + `{"row":1,"outcome":"added","id":${id}}\n`);
      const error = await readPriorRuns(path).then(
        () => undefined,
        (e: unknown) => e as UsageError,
      );
      expect(error?.message, id).toContain("line 2 is not a line of a petstore results file");
    }
  });

  it("keeps ids across the growth of its tables (row 5,000 of a sparse file)", async () => {
    const path = join(dir, "sparse.results");
    await writeFile(
      path,
      RUN_LINE + `{"row":3,"outcome":"added","id":30}\n{"row":5000,"outcome":"added","id":50000}\n`,
    );
    const prior = await readPriorRuns(path);
    expect([prior.id(3), prior.id(5000), prior.id(4999)]).toEqual([30n, 50000n, undefined]);
  });
});
