/** CSV as spreadsheets export it: the delimiter of the header, unknown columns, short rows. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseCsv } from "../../src/bulk/input/csv.js";
import { InputFormatError, type InputRecord } from "../../src/bulk/input/input-record.js";

async function* chunked(text: string, cuts: number[] = []): AsyncGenerator<string> {
  let start = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    if (cut <= start || cut >= text.length) continue;
    yield text.slice(start, cut);
    start = cut;
  }
  yield text.slice(start);
}

/** The records of `text` cut into chunks at `cuts`, its first 4 KiB its head (see source.ts). */
async function csv(text: string, ignoreUnknownColumns = false, cuts?: number[]) {
  const records: InputRecord[] = [];
  const head = text.slice(0, 4096);
  for await (const record of parseCsv(chunked(text, cuts), { ignoreUnknownColumns, head })) {
    records.push(record);
  }
  return records;
}

async function failure(text: string, ignoreUnknownColumns = false): Promise<InputFormatError> {
  try {
    await csv(text, ignoreUnknownColumns);
  } catch (error) {
    if (error instanceof InputFormatError) return error;
    throw error;
  }
  throw new Error("expected an InputFormatError");
}

describe("the delimiter", () => {
  it("is a semicolon when the header is split by semicolons (Excel in much of Europe)", async () => {
    expect(await csv('name;categoryId;status\r\n"Rex; jr";1;sold\r\nTom, the cat;2;\r\n')).toEqual([
      { row: 1, line: 2, value: { name: "Rex; jr", categoryId: 1n, status: "sold" } },
      { row: 2, line: 3, value: { name: "Tom, the cat", categoryId: 2n } },
    ]);
  });

  it("is a tab when the header is split by tabs", async () => {
    expect(await csv("Name\tCategory_ID\nRex, jr; the 2nd\t3\n")).toEqual([
      { row: 1, line: 2, value: { name: "Rex, jr; the 2nd", categoryId: 3n } },
    ]);
  });

  it("is read from quoted header names, after blank lines, with delimiters inside quotes", async () => {
    const text = '\n  \r\n"name";"categoryId";"a,b"\n"x,y";4;"p;q"\n';
    expect(await csv(text, true)).toEqual([
      { row: 1, line: 4, value: { name: "x,y", categoryId: 4n } },
    ]);
  });

  it("is the one that finds the most known columns; a tie goes to the comma", async () => {
    // The comma finds status only; the semicolon finds name and categoryId.
    expect(await csv("status,x;name;categoryId\nsold,a;Rex;1\n", true)).toEqual([
      { row: 1, line: 2, value: { name: "Rex", categoryId: 1n } },
    ]);
    // One known column each way: the comma, and the unknown column is named as the comma sees it.
    expect((await failure("name;x,categoryId\n")).message).toContain('unknown column "name;x"');
    expect((await failure("a\tb;c\n")).message).toContain('unknown column "a\\tb;c"');
  });

  it("gives the same records however a semicolon file is cut into chunks", async () => {
    const text =
      '\r\n"name";categoryId;status\r\n"a "";"" b";1;sold\r\n"x\r\ny";2;\r\n\r\nplain,3;3;pending\n"";4;\r"z";5;available';
    const whole = await csv(text);
    expect(whole).toHaveLength(5);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: text.length - 1 }), { maxLength: 8 }),
        async (cuts) => {
          expect(await csv(text, false, cuts)).toEqual(whole);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("unknown columns", () => {
  it("are refused, every one named, with the flag that ignores them", async () => {
    const error = await failure("name,Colour,categoryId,,age\n");
    expect(error.line).toBe(1);
    expect(error.message).toBe(
      'line 1: the CSV header has unknown columns "Colour", an unnamed column (4), "age"; the columns are name, categoryId (or category_id) and status; --ignore-unknown-columns ignores them',
    );
  });

  it("are ignored with --ignore-unknown-columns, their cells whatever they hold", async () => {
    expect(await csv('colour,name,categoryId,\nred,Rex,1,"x\ny"\n,Tom,2,\n', true)).toEqual([
      { row: 1, line: 2, value: { name: "Rex", categoryId: 1n } },
      { row: 2, line: 4, value: { name: "Tom", categoryId: 2n } },
    ]);
  });

  it("do not stand in for a required one, nor for a name Object's prototype has", async () => {
    expect((await failure("name,colour\n", true)).message).toContain("no categoryId column");
    expect((await failure("constructor,name,categoryId\n")).message).toContain('"constructor"');
  });
});

describe("rows that do not match the header", () => {
  it("are invalid when short, named by their line, and the rest is read", async () => {
    expect(await csv('name,categoryId,status\nRex,1\nTom\n"Kit\nten",3,sold\n"Max",4\n')).toEqual([
      { row: 1, line: 2, unreadable: "has 2 fields; the header has 3" },
      { row: 2, line: 3, unreadable: "has 1 field; the header has 3" },
      { row: 3, line: 4, value: { name: "Kit\nten", categoryId: 3n, status: "sold" } },
      { row: 4, line: 6, unreadable: "has 2 fields; the header has 3" },
    ]);
  });

  it("are skipped when every cell is empty, as spreadsheets write rows below the data", async () => {
    expect(await csv("name;categoryId;status\r\n;;\r\nRex;1;\r\n ; ;\r\n;\r\n\t;;\r\n")).toEqual([
      { row: 1, line: 3, value: { name: "Rex", categoryId: 1n } },
    ]);
  });

  it("are invalid when long, counting the ignored columns of the header", async () => {
    expect(await csv("name;categoryId;colour\r\nRex;1\r\nTom;2;red;x\r\nKit;3;\r\n", true)).toEqual(
      [
        { row: 1, line: 2, unreadable: "has 2 fields; the header has 3" },
        { row: 2, line: 3, unreadable: "has 4 fields; the header has 3" },
        { row: 3, line: 4, value: { name: "Kit", categoryId: 3n } },
      ],
    );
  });
});
