import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseCsv } from "../../src/bulk/input/csv.js";
import { detectFormat } from "../../src/bulk/input/input-format.js";
import { parseJsonArray } from "../../src/bulk/input/json-array.js";
import { parseNdjson } from "../../src/bulk/input/ndjson.js";
import {
  InputFormatError,
  type InputRecord,
  type ParseOptions,
} from "../../src/bulk/input/input-record.js";

type RecordParser = (
  chunks: AsyncIterable<string>,
  options?: ParseOptions,
) => AsyncGenerator<InputRecord>;
import { petBody } from "../../src/bulk/rows.js";
import { parseJson, stringifyJson } from "../../src/schema/json.js";
import type { PetStatus } from "../../src/schema/pet.js";

async function* chunked(text: string, cuts: number[] = []): AsyncGenerator<string> {
  let start = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    if (cut <= start || cut >= text.length) continue;
    yield text.slice(start, cut);
    start = cut;
  }
  yield text.slice(start);
}

async function records(
  parser: RecordParser,
  text: string,
  cuts?: number[],
): Promise<InputRecord[]> {
  const all: InputRecord[] = [];
  const head = text.slice(0, 4096);
  for await (const record of parser(chunked(text, cuts), { head })) all.push(record);
  return all;
}

async function failure(parser: RecordParser, text: string): Promise<InputFormatError> {
  try {
    await records(parser, text);
  } catch (error) {
    if (error instanceof InputFormatError) return error;
    throw error;
  }
  throw new Error("expected an InputFormatError");
}

describe("CSV", () => {
  it("reads a header in any order and letter case, with category_id, into candidate pets", async () => {
    const rows = await records(parseCsv, "Status,category_id,NAME\navailable,7,Rex\r\n,12,Tom\n");
    expect(rows).toEqual([
      { row: 1, line: 2, value: { status: "available", categoryId: 7n, name: "Rex" } },
      { row: 2, line: 3, value: { categoryId: 12n, name: "Tom" } },
    ]);
  });

  it("keeps quoted commas, doubled quotes and line breaks, and counts lines inside quotes", async () => {
    const text = 'name,categoryId\n"Rex, the ""dog""",1\n"two\nlines",2\n"cr\r\nlf",3\nlast,4';
    const rows = await records(parseCsv, text);
    expect(rows.map((r) => [r.row, r.line, (r.value as { name: string }).name])).toEqual([
      [1, 2, 'Rex, the "dog"'],
      [2, 3, "two\nlines"],
      [3, 5, "cr\r\nlf"],
      [4, 7, "last"],
    ]);
  });

  it("skips blank lines, treats empty cells as absent, and keeps int64 digits exact", async () => {
    const rows = await records(
      parseCsv,
      "\nname,categoryId,status\n\nRex,9223372036854775807,\n\n",
    );
    expect(rows).toEqual([
      { row: 1, line: 4, value: { name: "Rex", categoryId: 9223372036854775807n } },
    ]);
  });

  it("gives the schema numbers and text it can name: 1.5 and abc stay what they are", async () => {
    const rows = await records(parseCsv, "name,categoryId\nA,1.5\nB,abc\nC, 42 \n");
    expect(rows.map((r) => (r.value as { categoryId: unknown }).categoryId)).toEqual([
      1.5,
      "abc",
      42n,
    ]);
  });

  it("reports rows with too many fields, and reads the rest", async () => {
    const rows = await records(parseCsv, "name,categoryId\nA,1,x\nC,3\n");
    expect(rows).toEqual([
      { row: 1, line: 2, unreadable: "has 3 fields; the header has 2" },
      { row: 2, line: 3, value: { name: "C", categoryId: 3n } },
    ]);
  });

  it("stops at a quote out of place, naming its line: csv-parse's answer", async () => {
    const closing = await failure(parseCsv, 'name,categoryId\nA,1\n"B"x,2\nC,3\n');
    expect([closing.line, closing.reason]).toEqual([
      3,
      "a quoted field has text after its closing quote",
    ]);
    const opening = await failure(parseCsv, 'name,categoryId\nA,1\n\nB"x,2\n');
    expect(opening.line).toBe(4);
    expect(opening.reason).toContain("does not start with one");
  });

  it("refuses an unknown, doubled or missing header column, naming it", async () => {
    expect((await failure(parseCsv, "name,categoryId,color\n")).message).toContain(
      'unknown column "color"',
    );
    expect((await failure(parseCsv, "name,categoryId,category_id\n")).message).toContain("twice");
    expect((await failure(parseCsv, "name,status\n")).message).toContain("no categoryId column");
  });

  it("names the line of a quote that is never closed", async () => {
    const error = await failure(parseCsv, 'name,categoryId\nA,1\n"B,2\nC,3\n');
    expect(error.line).toBe(3);
    expect(error.message).toContain("never closed");
  });

  it("gives the same records however the text is cut into chunks", async () => {
    const text =
      'name,categoryId,status\r\n"a ""q"" b",1,sold\r\n"x\r\ny",2,\r\n\r\nplain,3,pending\n"",4,\r"z",5,available';
    const whole = await records(parseCsv, text);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: text.length - 1 }), { maxLength: 8 }),
        async (cuts) => {
          expect(await records(parseCsv, text, cuts)).toEqual(whole);
        },
      ),
    );
  });
});

describe("NDJSON", () => {
  it("reads one value per line, skips blank lines and accepts CRLF", async () => {
    const rows = await records(
      parseNdjson,
      '{"name":"A","categoryId":1}\r\n\n  \n{"name":"B","categoryId":2}',
    );
    expect(rows).toEqual([
      { row: 1, line: 1, value: { name: "A", categoryId: 1n } },
      { row: 2, line: 4, value: { name: "B", categoryId: 2n } },
    ]);
  });

  it("reports a broken line with its column and goes on", async () => {
    const rows = await records(parseNdjson, '{"name":"A",}\n{"name":"B","categoryId":2}\n');
    expect(rows[0]).toEqual({
      row: 1,
      line: 1,
      unreadable:
        "not valid JSON: Unexpected '}', expected a string key in double quotes at column 13",
    });
    expect(rows[1]!.value).toEqual({ name: "B", categoryId: 2n });
  });

  it("gives the same records however the text is cut into chunks", async () => {
    const text = '{"name":"a\\nb","categoryId":1}\r\n\n{"x":[1,2]}\n{bad\n[]';
    const whole = await records(parseNdjson, text);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: text.length - 1 }), { maxLength: 8 }),
        async (cuts) => {
          expect(await records(parseNdjson, text, cuts)).toEqual(whole);
        },
      ),
    );
  });
});

describe("JSON array", () => {
  it("reads elements with strings holding brackets and escapes, with their start lines", async () => {
    const text =
      '[\n  {"name":"a]},[","categoryId":1},\n  {"name":"q\\"}","categoryId":2,\n   "status":"sold"}, 3\n]';
    const rows = await records(parseJsonArray, text);
    expect(rows).toEqual([
      { row: 1, line: 2, value: { name: "a]},[", categoryId: 1n } },
      { row: 2, line: 3, value: { name: 'q"}', categoryId: 2n, status: "sold" } },
      { row: 3, line: 4, value: 3n },
    ]);
  });

  it("reports a broken element at its place in the file and reads the next one", async () => {
    const rows = await records(
      parseJsonArray,
      '[{"name":"A"},\n  {"name": tru},\n {"name":"C","categoryId":3}]',
    );
    expect(rows[1]).toEqual({
      row: 2,
      line: 2,
      unreadable: "not valid JSON: Unexpected 't', expected a JSON value at line 2, column 12",
    });
    expect(rows[2]!.value).toEqual({ name: "C", categoryId: 3n });
  });

  it("reads two elements without a comma between them as one broken element, and goes on", async () => {
    const rows = await records(parseJsonArray, '[{"a":1} {"b":2},\n {"name":"C"}]');
    expect(rows).toEqual([
      {
        row: 1,
        line: 1,
        unreadable:
          "not valid JSON: Unexpected '{' after the end of the JSON value at line 1, column 10",
      },
      { row: 2, line: 2, value: { name: "C" } },
    ]);
  });

  it("stops at broken structure: a trailing comma, an unclosed array, text after it", async () => {
    expect((await failure(parseJsonArray, "[1,]")).message).toContain(
      "a value is expected after ','",
    );
    expect((await failure(parseJsonArray, '[{"a":1},\n')).message).toContain("not closed");
    expect((await failure(parseJsonArray, "[] x")).message).toContain("nothing may follow");
    expect((await failure(parseJsonArray, '{"a":1}')).message).toContain("must start with '['");
  });

  it("reads an empty array as no rows", async () => {
    expect(await records(parseJsonArray, " [ ] \n")).toEqual([]);
  });

  it("gives the same records however the text is cut into chunks", async () => {
    const text =
      '[ {"name":"x,]","categoryId":-5}, 12 ,"s\\\\",\n[1,[2]] , {"n":{"m":"}"}}, true,null ]';
    const whole = await records(parseJsonArray, text);
    expect(whole).toHaveLength(7);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: text.length - 1 }), { maxLength: 8 }),
        async (cuts) => {
          expect(await records(parseJsonArray, text, cuts)).toEqual(whole);
        },
      ),
    );
  });
});

describe("format detection", () => {
  it("goes by extension, then by the first character", () => {
    expect(detectFormat("pets.CSV", "[")).toBe("csv");
    expect(detectFormat("pets.jsonl", "name")).toBe("ndjson");
    expect(detectFormat("pets.json", '\n  [{"name"')).toBe("json");
    expect(detectFormat("pets.json", '{"name":"a"}')).toBe("ndjson");
    expect(detectFormat(undefined, "\uFEFFname,categoryId")).toBe("csv");
    expect(detectFormat("data.txt", " {")).toBe("ndjson");
  });
});

describe("the body of a row", () => {
  it("writes a NewPet body: escaped name, exact int64, status only when given", () => {
    expect(petBody({ name: 'Rex "the"\nDog\u0001', categoryId: -9223372036854775808n })).toBe(
      '{"name":"Rex \\"the\\"\\nDog\\u0001","categoryId":-9223372036854775808}',
    );
    expect(petBody({ name: "Ann", categoryId: 9223372036854775807n, status: "sold" })).toBe(
      '{"name":"Ann","categoryId":9223372036854775807,"status":"sold"}',
    );
  });

  it("writes a NewPet body exactly as stringifyJson does", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        fc.option(fc.constantFrom("available", "pending", "sold") as fc.Arbitrary<PetStatus>, {
          nil: undefined,
        }),
        (name, categoryId, status) => {
          const pet = status === undefined ? { name, categoryId } : { name, categoryId, status };
          expect(petBody(pet)).toBe(stringifyJson({ name, categoryId, status }));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe("nesting far past the parser's limit", () => {
  it("is a record that cannot be read, not a stack overflow, at 5,000 and 100,000 levels", async () => {
    for (const levels of [5_000, 100_000]) {
      const objects = '{"a":'.repeat(levels) + "1" + "}".repeat(levels);
      expect(() => parseJson(objects)).toThrow(/Nesting deeper than 256 levels/);
      for (const [parser, text] of [
        [parseNdjson, `${objects}\n`],
        [parseJsonArray, `[${objects}]`],
      ] as const) {
        const [record] = await records(parser, text);
        expect(record!.unreadable).toMatch(/^not valid JSON: Nesting deeper than 256 levels/);
      }
    }
  });
});
