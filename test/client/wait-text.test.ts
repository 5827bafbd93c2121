import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clockTime, formatWait, waitUntil, windowOf } from "../../src/client/wait-text.js";

const MIDNIGHT = Date.UTC(2030, 10, 6);

describe("formatWait", () => {
  it.each([
    [0, "0 s"],
    [1, "1 s"],
    [12_000, "12 s"],
    [60_000, "60 s"],
    [60_001, "1 min 1 s"],
    [61_000, "1 min 1 s"],
    [120_000, "2 min"],
    [754_000, "12 min 34 s"],
    [3_599_000, "59 min 59 s"],
    [3_600_000, "1 h"],
    [3_600_001, "1 h 1 min"],
    [45_120_000, "12 h 32 min"],
    [86_400_000, "24 h"],
  ])("words %d ms as %j", (ms, text) => {
    expect(formatWait(ms)).toBe(text);
  });

  it("never words a wait shorter than it is", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3 * 86_400_000 }), (ms) => {
        const text = formatWait(ms);
        const match = /^(?:(\d+) h)? ?(?:(\d+) min)? ?(?:(\d+) s)?$/.exec(text);
        expect(match).not.toBeNull();
        const [, h = "0", m = "0", s = "0"] = match!;
        const shown = ((Number(h) * 60 + Number(m)) * 60 + Number(s)) * 1000;
        expect(shown).toBeGreaterThanOrEqual(ms);
        // ...and rounds up by at most its last unit.
        expect(shown - ms).toBeLessThan(ms > 3_600_000 ? 60_000 : 1000);
      }),
      { numRuns: 500 },
    );
  });
});

describe("clockTime and waitUntil", () => {
  it("gives the moment in UTC, with seconds only when it has some", () => {
    const now = MIDNIGHT - 45_120_000;
    expect(clockTime(MIDNIGHT, now)).toBe("00:00 UTC");
    expect(clockTime(MIDNIGHT - 53_000, now)).toBe("23:59:07 UTC");
    expect(clockTime(MIDNIGHT + 86_400_000, now)).toBe("00:00 UTC on 7 Nov");
  });

  it("says a wait past a minute in hours and minutes, with the moment", () => {
    expect(waitUntil(MIDNIGHT, MIDNIGHT - 45_120_000)).toBe("12 h 32 min (at 00:00 UTC)");
    expect(waitUntil(MIDNIGHT, MIDNIGHT - 61_000)).toBe("1 min 1 s (at 00:00 UTC)");
    expect(waitUntil(MIDNIGHT, MIDNIGHT - 12_000)).toBe("12 s");
    expect(waitUntil(MIDNIGHT, MIDNIGHT - 60_000)).toBe("60 s");
  });
});

describe("windowOf", () => {
  it("names the minute window for a reset at most a minute away", () => {
    expect(windowOf(MIDNIGHT + 60_000, MIDNIGHT)).toBe("minute");
    expect(windowOf(MIDNIGHT, MIDNIGHT - 1)).toBe("minute");
  });
  it("names the day window for a later reset at a UTC midnight", () => {
    expect(windowOf(MIDNIGHT, MIDNIGHT - 45_120_000)).toBe("day");
    expect(windowOf(MIDNIGHT, MIDNIGHT - 61_000)).toBe("day");
  });
  it("names none for a later reset at another moment (a ban, another service's window)", () => {
    expect(windowOf(MIDNIGHT + 600_000, MIDNIGHT)).toBeUndefined();
  });
});
