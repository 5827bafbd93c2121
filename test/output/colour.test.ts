import { describe, expect, it } from "vitest";
import { decideColor, decideSpinner } from "../../src/io/decisions.js";
import { createTestIO } from "../test-io.js";

describe("the colour decision", () => {
  it.each([
    [true, {}, false, true],
    [false, {}, false, false],
    [true, {}, true, false],
    [true, { NO_COLOR: "1" }, false, false],
    [true, { NO_COLOR: "" }, false, true],
    [true, { TERM: "dumb" }, false, false],
    [false, { FORCE_COLOR: "1" }, false, true],
    [false, { FORCE_COLOR: "" }, false, true],
    [true, { FORCE_COLOR: "0" }, false, false],
    [true, { FORCE_COLOR: "false" }, false, false],
    [false, { FORCE_COLOR: "1", NO_COLOR: "1" }, false, true],
    [true, { FORCE_COLOR: "1" }, true, false],
  ])("terminal=%s env=%j --no-color=%s: colour %s", (isTTY, env, noColorFlag, expected) => {
    expect(decideColor({ isTTY, env, noColorFlag })).toBe(expected);
  });

  it("is made for stdout and stderr separately", () => {
    const io = createTestIO({ stdoutTTY: false, stderrTTY: true });
    expect(io.colorEnabled("stdout")).toBe(false);
    expect(io.colorEnabled("stderr")).toBe(true);
    io.disableColor();
    expect(io.colorEnabled("stderr")).toBe(false);
  });
});

describe("the spinner decision", () => {
  it.each([
    [true, 80, {}, true],
    [false, undefined, {}, false],
    [true, 80, { CI: "true" }, false],
    [true, 80, { CI: "false" }, true],
    [true, 80, { TERM: "dumb" }, false],
    [true, 0, {}, false],
  ])(
    "stderr terminal=%s of %s columns, env=%j: spinner %s",
    (stderrIsTTY, stderrColumns, env, expected) => {
      expect(decideSpinner({ isTTY: stderrIsTTY, columns: stderrColumns }, env)).toBe(expected);
    },
  );
});
