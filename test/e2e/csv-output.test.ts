/**
 * `list --output csv` for real: the CLI (dist/) against a `petstore serve` process
 * whose pets have names made to attack a terminal (ESC, OSC 8 links, NUL) and a
 * spreadsheet (formulas), bidirectional controls that reorder what is shown, a C1
 * CSI, and integers at the edges of int64, negative included. Nothing but tab and
 * the CRLF line ends may reach the terminal as a control character, in CSV, TSV,
 * the table, JSON (whose values still read back the same) or what `--jq` prints.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servePetsFile } from "./harness.js";

const ESC = "\u001b";
/** Control characters but tab and line feed. */
// eslint-disable-next-line no-control-regex
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const PETS: [id: string, name: string, categoryId: string][] = [
  ["1", `${ESC}[2J${ESC}[31mscreen wiped`, "1"],
  ["2", `${ESC}]8;;https://evil.example/${ESC}\\Rex${ESC}]8;;${ESC}\\`, "2"],
  ["3", "nul\u0000byte", "3"],
  ["4", '=HYPERLINK("https://evil.example","Rex")', "-4"],
  ["5", "+1", "5"],
  ["6", "-2", "-9223372036854775808"],
  ["7", "@SUM(A1:A9)", "7"],
  ["8", "\t=1+1", "8"],
  ["10", "\u202etxt.exe", "10"],
  ["11", "a\u2066b\u2069\u2067c\u2068\u200e\u200f\u061c\u202a\u202b\u202c\u202dd", "11"],
  ["12", "csi\u009b31m red", "12"],
  ["9223372036854775807", "Plain, with a comma", "9223372036854775807"],
];

const EXPECTED =
  "id,name,categoryId,status\r\n" +
  "1,\\x1b[2J\\x1b[31mscreen wiped,1,pending\r\n" +
  "2,\\x1b]8;;https://evil.example/\\x1b\\Rex\\x1b]8;;\\x1b\\,2,pending\r\n" +
  "3,nul\\x00byte,3,pending\r\n" +
  `4,"'=HYPERLINK(""https://evil.example"",""Rex"")",-4,pending\r\n` +
  `5,"'+1",5,pending\r\n` +
  `6,"'-2",-9223372036854775808,pending\r\n` +
  `7,"'@SUM(A1:A9)",7,pending\r\n` +
  `8,"'\t=1+1",8,pending\r\n` +
  "10,\\u202etxt.exe,10,pending\r\n" +
  "11,a\\u2066b\\u2069\\u2067c\\u2068\\u200e\\u200f\\u061c\\u202a\\u202b\\u202c\\u202dd,11,pending\r\n" +
  "12,csi\\x9b31m red,12,pending\r\n" +
  `9223372036854775807,"Plain, with a comma",9223372036854775807,pending\r\n`;

let fake: Awaited<ReturnType<typeof servePetsFile>>;

beforeAll(async () => {
  fake = await servePetsFile(
    PETS.map(
      ([id, name, categoryId]) =>
        `{"id":${id},"name":${JSON.stringify(name)},"categoryId":${categoryId},"status":"pending"}`,
    ),
  );
});

afterAll(() => fake?.stop());

const list = (output: string, ...more: string[]) => fake.cli(["list", "--output", output, ...more]);

describe("list --output csv", () => {
  it("escapes control characters, neutralises formulas in names, keeps integers exact", () => {
    const run = list("csv");
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(EXPECTED);
    expect(run.stdout.replace(/\r\n/g, "")).not.toMatch(TERMINAL_CONTROL);
  });
});

describe("bidirectional and C1 controls in every output", () => {
  it("are escaped in the table and TSV as in CSV", () => {
    for (const output of ["table", "tsv"]) {
      const run = list(output);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).not.toMatch(BIDI_CONTROL);
      expect(run.stdout.replace(/[\t\n]/g, "")).not.toMatch(TERMINAL_CONTROL);
      expect(run.stdout).toContain("\\u202etxt.exe");
      expect(run.stdout).toContain("csi\\x9b31m red");
    }
  });

  it("are \\u escapes in JSON and NDJSON, which read back as the names", () => {
    for (const output of ["json", "ndjson"]) {
      const run = list(output);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).not.toMatch(BIDI_CONTROL);
      expect(run.stdout.replace(/\n/g, "")).not.toMatch(TERMINAL_CONTROL);
      const values =
        output === "json"
          ? (JSON.parse(run.stdout) as Array<{ name: string }>)
          : run.stdout
              .trim()
              .split("\n")
              .map((line) => JSON.parse(line) as { name: string });
      expect(values.map((pet) => pet.name)).toEqual(PETS.map(([, name]) => name));
    }
  });

  it("are escaped in the strings --jq prints as in CSV, and \\u escapes in its JSON", () => {
    const names = list("json", "--jq", ".[].name");
    expect(names.status, names.stderr).toBe(0);
    expect(names.stdout).not.toMatch(BIDI_CONTROL);
    expect(names.stdout.replace(/[\t\n]/g, "")).not.toMatch(TERMINAL_CONTROL);
    expect(names.stdout).toContain("\\x1b[2J\\x1b[31mscreen wiped\n");
    expect(names.stdout).toContain("\\u202etxt.exe\n");
    expect(names.stdout).toContain("\t=1+1\n");
    const json = list("json", "--jq", "map({name})");
    expect(json.stdout).not.toMatch(BIDI_CONTROL);
    expect(json.stdout.replace(/\n/g, "")).not.toMatch(TERMINAL_CONTROL);
    const values = JSON.parse(json.stdout) as Array<{ name: string }>;
    expect(values.map((pet) => pet.name)).toEqual(PETS.map(([, name]) => name));
  });
});
