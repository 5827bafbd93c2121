import { describe, expect, it } from "vitest";
import { redactKey } from "../../src/schema/redact-key.js";

describe("redactKey", () => {
  it.each([
    ["psk_live_4f9a8b7c6d5e4f3a2b1c", "psk_…2b1c"],
    ["4f9a8b7c6d5e4f3a2b1c", "…2b1c"],
    ["psk_4f9a8b7c6d5e", "…6d5e"],
    ["short-key", "…"],
    ["psk_", "…"],
    ["", "…"],
  ])("%s is shown as %s", (key, shown) => {
    expect(redactKey(key)).toBe(shown);
  });

  it("always hides at least 12 characters of the key", () => {
    for (let length = 0; length <= 40; length++) {
      const key = "psk_" + "x".repeat(length);
      const shown = redactKey(key).replace("…", "");
      expect(key.length - shown.length).toBeGreaterThanOrEqual(Math.min(12, key.length));
    }
  });
});
