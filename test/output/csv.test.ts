/**
 * CSV cells: RFC 4180 quoting, tab and line feed kept as data, every other
 * control character escaped as in the table (nothing raw that could drive a
 * terminal), and text that a spreadsheet would run as a formula neutralised with
 * a leading `'` (OWASP's CSV injection advice). Integer cells are numbers,
 * negative ones included, and stay exact.
 */
import fc from "fast-check";
import { renderCsv } from "../../src/output/columns.js";
import { describe, expect, it } from "vitest";
import { PET_COLUMNS } from "../../src/output/pets.js";
import { csvField } from "../../src/output/text-escape.js";

const ESC = "\u001b";
/** Control characters but tab and line feed. */
// eslint-disable-next-line no-control-regex
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const OSC8_LINK = `${ESC}]8;;https://evil.example/${ESC}\\click me${ESC}]8;;${ESC}\\`;

/** What a script does to get the name back: RFC 4180 unquoting, one leading `'` off, escapes undone. */
function decodeTextCell(cell: string): string {
  let text = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
  if (text.startsWith("'")) text = text.slice(1);
  return text.replace(/\\(r|x[0-9a-f]{2})/g, (_, c: string) =>
    c === "r" ? "\r" : String.fromCharCode(parseInt(c.slice(1), 16)),
  );
}

/** Any text, often starting with what a formula or an escape starts with. */
const texts = fc
  .tuple(
    fc.constantFrom("", "=", "+", "-", "@", "\t", "\r", "'", "''", "\\", '"', ESC),
    fc.string({ unit: "binary", maxLength: 40 }),
  )
  .map(([start, rest]) => start + rest);

describe("a CSV text cell", () => {
  it.each([
    ["plain", "plain"],
    ["", ""],
    ["a,b", '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ["two\nlines", '"two\nlines"'],
    ["in\ttab", "in\ttab"],
    ["cr\r\nlf", '"cr\\r\nlf"'],
    ["back\\slash", "back\\slash"],
    [`${ESC}[31mred`, "\\x1b[31mred"],
    [OSC8_LINK, "\\x1b]8;;https://evil.example/\\x1b\\click me\\x1b]8;;\\x1b\\"],
    ["nul\u0000here", "nul\\x00here"],
    ["bell\u0007 del\u007f csi\u009b", "bell\\x07 del\\x7f csi\\x9b"],
  ])("escapes %j as %j", (text, expected) => {
    expect(csvField(text)).toBe(expected);
  });

  it.each([
    ["=1+1", `"'=1+1"`],
    ["+1", `"'+1"`],
    ["-1", `"'-1"`],
    ["@SUM(A1:A9)", `"'@SUM(A1:A9)"`],
    ["\t=1+1", `"'\t=1+1"`],
    ["\r=1+1", `"'\\r=1+1"`],
    ['=HYPERLINK("https://evil.example","x")', `"'=HYPERLINK(""https://evil.example"",""x"")"`],
    ["=cmd|' /C calc'!A0", `"'=cmd|' /C calc'!A0"`],
    ["-2,+3", `"'-2,+3"`],
    ["'quoted", `"''quoted"`],
  ])("neutralises %j against formula injection as %j", (text, expected) => {
    expect(csvField(text)).toBe(expected);
  });

  it.each([["a=b"], [" =1+1"], ["Rex-2"], ["x@y"], ["\n=1"]])(
    "leaves %j without a leading quote (only a first = + - @ tab CR is a formula)",
    (text) => {
      expect(csvField(text).replace(/^"/, "")).not.toMatch(/^'/);
    },
  );

  it("never holds a control character that drives a terminal, nor starts a formula", () => {
    fc.assert(
      fc.property(texts, (text) => {
        const cell = csvField(text);
        const unquoted = cell.startsWith('"') ? cell.slice(1) : cell;
        return !TERMINAL_CONTROL.test(cell) && !/^[=+\-@\t\r]/.test(unquoted);
      }),
      { numRuns: 500, seed: 1015 },
    );
  });

  it("gives back the exact text of a name without backslashes", () => {
    fc.assert(
      fc.property(
        texts.filter((text) => !text.includes("\\")),
        (text) => decodeTextCell(csvField(text)) === text,
      ),
      { numRuns: 500, seed: 1015 },
    );
  });
});

describe("a CSV integer cell", () => {
  it.each([["0"], ["42"], ["-1"], ["-9223372036854775808"], ["9223372036854775807"]])(
    "keeps %j exact and unquoted: a negative number is a number",
    (text) => {
      expect(csvField(text, { integer: true })).toBe(text);
    },
  );

  it.each([
    ["=1+1", `"'=1+1"`],
    ["-1+2", `"'-1+2"`],
  ])("still neutralises %j, which is not an integer, as %j", (text, expected) => {
    expect(csvField(text, { integer: true })).toBe(expected);
  });
});

describe("pets as CSV", () => {
  it("neutralises names, never ids or category ids", () => {
    const pets = [
      { id: 1n, name: "-5", categoryId: -5n, status: "sold" as const },
      { id: 9223372036854775807n, name: "=1+1", categoryId: -9223372036854775808n },
      { id: 3n, name: `${ESC}]8;;x${ESC}\\y`, categoryId: 2n, status: "available" as const },
    ];
    expect(renderCsv(pets, PET_COLUMNS)).toBe(
      "id,name,categoryId,status\r\n" +
        `1,"'-5",-5,sold\r\n` +
        `9223372036854775807,"'=1+1",-9223372036854775808,\r\n` +
        "3,\\x1b]8;;x\\x1b\\y,2,available\r\n",
    );
  });
});
