import { describe, expect, it } from "vitest";
import { wholeNumberFlag } from "../../src/schema/whole-number.js";

describe("wholeNumberFlag", () => {
  it.each([
    ["0", 0],
    ["16", 16],
    [" 64 ", 64],
    ["0042", 42],
  ])("reads %j", (text, value) => {
    expect(wholeNumberFlag(text, "--n", 0, 64)).toEqual({ ok: true, value });
  });

  it.each(["65", "-1", "1.5", "1e2", "", " ", "0x10", "12345678901234567", "٣"])(
    "refuses %j, naming the flag and the range",
    (text) => {
      expect(wholeNumberFlag(text, "--n", 0, 64)).toEqual({
        ok: false,
        problem: `--n must be an integer from 0 to 64; got ${JSON.stringify(text)}`,
      });
    },
  );

  it("is exact at the top of a 32-bit range", () => {
    expect(wholeNumberFlag("4294967295", "--seed", 0, 0xffffffff)).toEqual({
      ok: true,
      value: 4294967295,
    });
    expect(wholeNumberFlag("4294967296", "--seed", 0, 0xffffffff).ok).toBe(false);
  });
});
