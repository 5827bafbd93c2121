import { describe, expect, it } from "vitest";
import { chooseOutput } from "../../src/output/output-format.js";

describe("choosing the output", () => {
  it.each([
    [{}, true, "table"],
    [{}, false, "tsv"],
    [{ output: "csv" }, true, "csv"],
    [{ json: true }, true, "json"],
    [{ json: true, output: "json" }, false, "json"],
    [{ quiet: true }, true, "ids"],
    [{ quiet: true }, false, "ids"],
    [{ output: "table" }, false, "table"],
  ])("%j with a terminal=%s gives %s", (flags, tty, expected) => {
    expect(chooseOutput(flags, tty)).toBe(expected);
  });

  it.each([
    [{ output: "yaml" }, /--output must be one of/],
    [{ output: "csv", json: true }, /conflicts with --output csv/],
    [{ output: "tsv", quiet: true }, /conflicts with --output tsv/],
  ])("refuses %j", (flags, message) => {
    expect(() => chooseOutput(flags, true)).toThrow(message);
  });
});
