import { describe, expect, it } from "vitest";
import { renderCsv } from "../../src/output/csv.js";
import { csvField, tsvField, visibleText } from "../../src/output/text-escape.js";
import { renderTsv } from "../../src/output/tsv.js";
import { PET_COLUMNS } from "../../src/output/pet-columns.js";

const ESC = String.fromCharCode(27);

describe("field escaping", () => {
  it.each([
    ["plain", "plain"],
    ["a\tb", "a\\tb"],
    ["line\nbreak\r", "line\\nbreak\\r"],
    ["back\\slash", "back\\\\slash"],
    [`${ESC}[31mred`, "\\x1b[31mred"],
    ["\u009b", "\\x9b"],
  ])("TSV writes %j as %j", (text, expected) => {
    expect(tsvField(text)).toBe(expected);
  });

  it("keeps a TSV field reversible", () => {
    const original = "a\\tb\tc\\\n";
    const escaped = tsvField(original);
    const restored = escaped.replace(/\\(\\|t|n|r)/g, (_, c: string) =>
      c === "\\" ? "\\" : c === "t" ? "\t" : c === "n" ? "\n" : "\r",
    );
    expect(restored).toBe(original);
  });

  it("shows control characters on a terminal but leaves backslashes alone", () => {
    expect(visibleText(`x${ESC}]0;title\u0007y\\z`)).toBe("x\\x1b]0;title\\x07y\\z");
  });

  it.each([
    ["plain", "plain"],
    ["a,b", '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ["two\nlines", '"two\nlines"'],
  ])("CSV writes %j as %j", (text, expected) => {
    expect(csvField(text)).toBe(expected);
  });
});

describe("pet rows", () => {
  const pets = [
    { id: 1n, name: "Rex, the dog", categoryId: 2n, status: "available" as const },
    { id: 2n, name: "Nameless", categoryId: 3n },
  ];

  it("renders TSV with no header and an empty field for a missing status", () => {
    expect(renderTsv(pets, PET_COLUMNS)).toBe("1\tRex, the dog\t2\tavailable\n2\tNameless\t3\t\n");
  });

  it("renders CSV with the field names as header", () => {
    expect(renderCsv(pets, PET_COLUMNS)).toBe(
      'id,name,categoryId,status\r\n1,"Rex, the dog",2,available\r\n2,Nameless,3,\r\n',
    );
  });
});
