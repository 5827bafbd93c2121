/**
 * No header value a service sends can throw, or change the outcome of a request
 * that was answered: every header the client reads (the rate-limit trio,
 * Retry-After, Date, Sunset, Deprecation, Link, Location) takes any value, and
 * every text made of one reads as words, never "NaN" or "Invalid Date". A reset
 * of fifteen digits of seconds is past what a Date holds: that is the case that
 * once threw "Invalid time value" under --verbose.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runBulkAdd } from "../../src/bulk/engine.js";
import type { Timers } from "../../src/bulk/pacer.js";
import { deprecationFromHeaders } from "../../src/client/headers.js";
import { DEFAULT_RETRY_POLICY, withRetry } from "../../src/client/retry.js";
import { createSender } from "../../src/client/send.js";
import type { Transport } from "../../src/client/transport.js";
import { clockTime, formatWait, isoTime, waitUntil } from "../../src/client/wait-text.js";
import { deprecationLines } from "../../src/commands/get.js";
import { describeRateLimit } from "../../src/commands/settings-summary.js";
import { RateLimitError } from "../../src/errors.js";
import { createTestIO } from "../test-io.js";
import { deps, options, tempDir, writeInput } from "../bulk/helpers.js";

const NOW = Date.UTC(2030, 10, 5);
const BASE_URL = "http://127.0.0.1:9/v1";
/** What no text made for a person may contain. */
const BROKEN = /NaN|Invalid|undefined|Infinity/;

const digits = fc
  .tuple(fc.integer({ min: 1, max: 25 }), fc.nat())
  .map(([length, seed]) => String(seed).padStart(length, "9").slice(0, length));
const httpDate = fc
  .tuple(fc.integer({ min: -300_000, max: 300_000 }), fc.integer({ min: 0, max: 11 }))
  .map(([year, month]) => {
    const months = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(" ");
    return `Thu, 01 ${months[month]} ${year} 00:00:00 GMT`;
  });
/** Values the debug line echoes are left out of the check: only what the client makes is checked. */
const headerValue = fc
  .oneof(
    digits,
    httpDate,
    digits.map((d) => `@${d}`),
    digits.map((d) => `-${d}`),
    fc.constantFrom("999999999999999", "8640000000001", "1e400", "1e21", ""),
    fc.double().map(String),
    fc.string(),
  )
  .filter((value) => !BROKEN.test(value));
const HEADER_NAMES = [
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "retry-after",
  "date",
  "sunset",
  "deprecation",
  "link",
  "location",
] as const;
/** Resets around the last second a Date holds (8,640,000,000,000 s), and far past it. */
const reset = fc.oneof(
  headerValue,
  fc.bigInt({ min: 8_639_999_999_000n, max: 999_999_999_999_999n }).map(String),
);
const count = fc.oneof(headerValue, fc.nat().map(String));
const valueFor = (name: string) =>
  name === "x-ratelimit-reset" ? reset : name.startsWith("x-ratelimit") ? count : headerValue;
const anyOf = Object.fromEntries(HEADER_NAMES.map((name) => [name, valueFor(name)])) as Record<
  (typeof HEADER_NAMES)[number],
  fc.Arbitrary<string>
>;
/** Half of them carry the whole rate-limit trio, which is what the client formats. */
const headers = fc.oneof(
  fc.record(anyOf, { requiredKeys: [] }),
  fc.record(anyOf, {
    requiredKeys: ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"],
  }),
);

/** The reproduction of the issue: always among the values tried. */
const FAR_RESET = {
  "x-ratelimit-limit": "60",
  "x-ratelimit-remaining": "59",
  "x-ratelimit-reset": "999999999999999",
};
const withFarReset = { examples: [[FAR_RESET]] as [Record<string, string>][] };

const PET = '{"id":5,"name":"Rex","categoryId":1,"status":"available"}';

function answering(status: number, answer: Record<string, string>, body = PET): Transport {
  return async () => ({ status, headers: { ...answer }, body });
}

describe("a header of any value", () => {
  it("leaves an answered request answered, and its debug line readable", async () => {
    await fc.assert(
      fc.asyncProperty(headers, async (answer) => {
        const lines: string[] = [];
        const send = createSender({
          baseUrl: BASE_URL,
          apiKey: "k-0123456789",
          timeoutMs: 1000,
          allowInsecure: false,
          transport: answering(201, answer),
          now: () => NOW,
          userAgent: "test",
          debug: (line) => lines.push(line),
        });
        const outcome = await send({ method: "POST", path: "/pets", body: "{}" });
        expect(outcome.kind).toBe("answered");
        expect(outcome.error).toBeUndefined();
        expect(lines).toHaveLength(1);
        expect(lines[0]).not.toMatch(BROKEN);
      }),
      { numRuns: 400, ...withFarReset },
    );
  });

  it("gives a 429 a message in words, whatever its reset and Retry-After say", async () => {
    await fc.assert(
      fc.asyncProperty(headers, async (answer) => {
        const send = withRetry(
          createSender({
            baseUrl: BASE_URL,
            apiKey: "k-0123456789",
            timeoutMs: 1000,
            allowInsecure: false,
            transport: answering(
              429,
              answer,
              '{"code":"rate_limited","message":"slow down","status":429}',
            ),
            now: () => NOW,
            userAgent: "test",
          }),
          { ...DEFAULT_RETRY_POLICY, limit: 0 },
          { sleep: async () => {}, now: () => NOW, random: () => 0.5 },
        );
        const error = await send({ method: "GET", path: "/pets?limit=1" }).catch((e) => e);
        expect(error).toBeInstanceOf(RateLimitError);
        expect((error as RateLimitError).message).not.toMatch(BROKEN);
        const rateLimit = (error as RateLimitError).response?.rateLimit;
        expect(describeRateLimit(rateLimit, NOW)).not.toMatch(BROKEN);
      }),
      { numRuns: 400, ...withFarReset },
    );
  });

  it("gives the deprecation warning real dates", () => {
    fc.assert(
      fc.property(headers, (answer) => {
        const deprecation = deprecationFromHeaders(answer, `${BASE_URL}/pets/5`);
        expect(deprecationLines(deprecation, NOW, BASE_URL, 80).join("\n")).not.toMatch(BROKEN);
      }),
      { numRuns: 400, ...withFarReset },
    );
  });

  it("adds every row a bulk run sent and the service answered 201, with --verbose", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const from = await writeInput(dir, "two.csv", "name,categoryId\nRex,1\nTom,2\n");
      await fc.assert(
        fc.asyncProperty(headers, async (answer) => {
          let now = NOW;
          // Every wait is over at once: the clock jumps to its end.
          const timers: Timers = {
            now: () => now,
            setTimeout: (callback, ms) => setImmediate(() => ((now += ms), callback())),
            clearTimeout: (handle) => clearImmediate(handle as NodeJS.Immediate),
          };
          let answered = 0;
          const transport: Transport = async () => {
            answered++;
            return { status: 201, headers: { ...answer }, body: PET };
          };
          const io = createTestIO();
          const report = await runBulkAdd(
            options(from, { verbose: true }),
            deps(BASE_URL, { io, transport, timers }),
          );
          // A long wait may stop the run before a row is sent; a row answered 201 is added.
          expect(report.added).toBe(answered);
          expect(report.failed).toBe(0);
          expect(report.exitCode === 0 || report.exitCode === 5).toBe(true);
          expect(io.err()).not.toMatch(BROKEN);
        }),
        { numRuns: 150, ...withFarReset },
      );
    } finally {
      await cleanup();
    }
  });
});

describe("the texts of a moment or a wait", () => {
  const anyNumber = fc.oneof(
    fc.double(),
    fc.constantFrom(Number.MAX_VALUE, -Number.MAX_VALUE, 8.64e15 + 1, 1e18),
  );

  it("are total over every number", () => {
    fc.assert(
      fc.property(anyNumber, anyNumber, (at, now) => {
        for (const text of [formatWait(at), clockTime(at, now), waitUntil(at, now), isoTime(at)]) {
          expect(text).not.toMatch(BROKEN);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("name the year of a reset a year or more away", () => {
    expect(clockTime(999999999999999 * 1000, NOW)).toBe("00:00 UTC on 13 Sep 275760");
    expect(clockTime(Date.UTC(2031, 10, 5), NOW)).toBe("00:00 UTC on 5 Nov 2031");
    expect(clockTime(Date.UTC(2030, 10, 7), NOW)).toBe("00:00 UTC on 7 Nov");
  });
});
