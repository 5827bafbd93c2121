import fc from "fast-check";
import { renderCsv, renderTsv } from "../../src/output/columns.js";
import { describe, expect, it } from "vitest";
import {
  csvField,
  escapeJsonControls,
  tsvField,
  visibleText,
} from "../../src/output/text-escape.js";
import { PET_COLUMNS } from "../../src/output/pets.js";

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

/** Every bidirectional control: each reorders what a terminal shows. */
const BIDI = [
  0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
];

describe("bidirectional controls", () => {
  it.each(BIDI.map((code) => [code.toString(16)]))(
    "U+%s is a \\u escape in the table, TSV and CSV",
    (hex) => {
      const text = `exe.${String.fromCharCode(parseInt(hex, 16))}txt`;
      const escaped = `exe.\\u${hex.padStart(4, "0")}txt`;
      expect(visibleText(text)).toBe(escaped);
      expect(tsvField(text)).toBe(escaped);
      expect(csvField(text)).toBe(escaped);
    },
  );
});

describe("escapeJsonControls", () => {
  const risky = fc.oneof(
    fc.integer({ min: 0x80, max: 0x9f }),
    fc.constantFrom(...BIDI),
    fc.integer({ min: 0, max: 0xffff }),
  );
  const text = fc.array(risky, { maxLength: 30 }).map((codes) => String.fromCharCode(...codes));

  it("leaves no C1 or bidirectional control raw, and JSON.parse reads the same value back", () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 4 }), (names) => {
        const json = escapeJsonControls(JSON.stringify({ names }));
        expect(json).not.toMatch(/[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
        expect(JSON.parse(json)).toEqual({ names });
      }),
      { numRuns: 1000 },
    );
  });

  it("writes U+009B, a terminal's CSI, as \\u009b", () => {
    expect(escapeJsonControls('{"name":"a\u009bb"}')).toBe('{"name":"a\\u009bb"}');
  });
});
