import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withoutKey } from "../../src/client/key-safety.js";

describe("withoutKey", () => {
  it("leaves messages readable with a 1-character key", () => {
    expect(withoutKey("unknown key: k", "k")).toBe("unknown key: …");
    expect(withoutKey("the key k is not valid (k)", "k")).toBe("the key … is not valid (…)");
    expect(withoutKey("rate limit exceeded for this key", "e")).toBe(
      "rate limit exceeded for this key",
    );
  });

  it("redacts a short key that stands between punctuation or spaces", () => {
    expect(withoutKey("Bearer abc12, again abc12.", "abc12")).toBe("Bearer …, again ….");
    expect(withoutKey("xabc12 abc12x abc12_ abc12-y", "abc12")).toBe(
      "xabc12 abc12x abc12_ abc12-y",
    );
  });

  it("redacts a key of 8 characters or more wherever it appears", () => {
    const key = "psk_live_4f9a8b7c6d5e4f3a2b1c";
    expect(withoutKey(`token=${key}; x${key}y`, key)).toBe("token=psk_…2b1c; xpsk_…2b1cy");
  });

  it("never leaves a whole-word copy of the key, and changes nothing else", () => {
    const word = fc.stringMatching(/^[a-z0-9]{1,10}$/);
    fc.assert(
      fc.property(
        word,
        fc.array(fc.oneof(word, fc.constantFrom(" ", ", ", ".", "\n")), { maxLength: 20 }),
        (key, parts) => {
          const text = parts.join(" ");
          const redacted = withoutKey(text, key);
          const words = redacted.split(/[^\p{L}\p{N}_-]+/u);
          expect(words).not.toContain(key);
          // Text without the key as a whole word is returned as it was.
          if (!text.split(/[^\p{L}\p{N}_-]+/u).includes(key) && key.length < 8) {
            expect(redacted).toBe(text);
          }
        },
      ),
      { numRuns: 300, seed: 1010 },
    );
  });

  it("leaves text alone without a key", () => {
    expect(withoutKey("anything", undefined)).toBe("anything");
    expect(withoutKey("anything", "")).toBe("anything");
  });
});
