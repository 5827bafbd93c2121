import { describe, expect, it } from "vitest";
import { envFlag } from "../../src/env-flag.js";

describe("envFlag", () => {
  it.each([
    ["1", true],
    ["true", true],
    [" YES ", true],
    ["On", true],
    ["0", false],
    ["", false],
    ["false", false],
    ["No", false],
    ["off", false],
    ["2", undefined],
    ["maybe", undefined],
  ])("reads %j as %j", (value, expected) => {
    expect(envFlag({ PETSTORE_X: value }, "PETSTORE_X")).toBe(expected);
  });

  it("reads an unset variable as off", () => {
    expect(envFlag({}, "PETSTORE_X")).toBe(false);
  });
});
