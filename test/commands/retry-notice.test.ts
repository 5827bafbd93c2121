import { describe, expect, it } from "vitest";
import { retryMessage } from "../../src/commands/retry-notice.js";
import { errorAnswer, jsonAnswer } from "./http-stubs.js";
import { cliForEachTest } from "./run-cli.js";

const cli = cliForEachTest();

const limited = errorAnswer(429, "rate_limited", "too many requests", { "retry-after": "12" });

describe("retry notices", () => {
  it.each([
    [
      { reason: "rate_limited", waitMs: 12_000, attempt: 2, maxAttempts: 4 },
      "rate limited; retrying in 12 s, attempt 2 of 4",
    ],
    [
      { reason: "server_error", waitMs: 1_001, attempt: 3, maxAttempts: 5 },
      "service unavailable; retrying in 1.1 s, attempt 3 of 5",
    ],
    [
      { reason: "rate_limit_exhausted", waitMs: 500, attempt: 1, maxAttempts: 5 },
      "rate limit used up; sending in 0.5 s, attempt 1 of 5",
    ],

    [
      { reason: "rate_limited", waitMs: 90_250, attempt: 2, maxAttempts: 5 },
      "rate limited; retrying in 1 min 31 s, attempt 2 of 5",
    ],
    [
      { reason: "timeout", waitMs: 0, attempt: 2, maxAttempts: 2 },
      "timed out; retrying now, attempt 2 of 2",
    ],
  ] as const)("words %j as %j", (event, text) => {
    expect(retryMessage(event)).toBe(text);
  });

  it("announces the wait it makes after a 503 with Retry-After: 1 (1.25 s with the margin)", async () => {
    cli.stubs
      .on("GET /pets?limit=20", errorAnswer(503, "unavailable", "busy", { "retry-after": "1" }))
      .on("GET /pets?limit=20", jsonAnswer(200, "[]"));
    const run = await cli.run(["list"]);
    expect(run.code).toBe(0);
    expect(run.sleeps).toEqual([1_250]);
    expect(run.err).toBe("service unavailable; retrying in 1.3 s, attempt 2 of 5\n");
    const announced = Number(/in ([0-9.]+) s/.exec(run.err)![1]) * 1000;
    expect(Math.abs(announced - run.sleeps[0]!)).toBeLessThan(100);
  });

  it("prints one plain line per wait when stderr is not a terminal", async () => {
    cli.stubs.on("GET /pets?limit=20", limited).on("GET /pets?limit=20", jsonAnswer(200, "[]"));
    const run = await cli.run(["list"]);
    expect(run.code).toBe(0);
    expect(run.err).toMatch(/^rate limited; retrying in 1[23] s, attempt 2 of 5\n$/);
    expect(run.io.spinnerEvents).toEqual([]);
    expect(run.sleeps[0]).toBeGreaterThanOrEqual(12_000);
  });

  it("shows a spinner on a terminal and leaves the notice as a line once done", async () => {
    cli.stubs.on("GET /pets?limit=20", limited).on("GET /pets?limit=20", jsonAnswer(200, "[]"));
    const run = await cli.run(["list"], { stderrTTY: true });
    expect(run.code).toBe(0);
    const [start, stop] = run.io.spinnerEvents;
    expect(start?.event).toBe("start");
    expect(start?.text).toMatch(/^rate limited; retrying in 1[23] s, attempt 2 of 5$/);
    expect(stop).toEqual({ event: "stop", text: start?.text });
    expect(run.err).toBe(`${start?.text}\n`);
  });

  it("ends the spinner before the data is written to a terminal", async () => {
    cli.stubs.on("GET /pets?limit=20", limited).on("GET /pets?limit=20", jsonAnswer(200, "[]"));
    const run = await cli.run(["list", "--json"], { stderrTTY: true, stdoutTTY: true });
    expect(run.io.transcript).toEqual(["spinner:start", "spinner:stop", "stdout"]);
    expect(run.out).toBe("[]\n");
  });

  it("never spins in CI, even on a terminal", async () => {
    cli.stubs.on("GET /pets?limit=20", limited).on("GET /pets?limit=20", jsonAnswer(200, "[]"));
    const run = await cli.run(["list"], { stderrTTY: true, env: { CI: "true" } });
    expect(run.io.spinnerEvents).toEqual([]);
    expect(run.err).toMatch(/^rate limited; retrying in/);
  });

  it("stops the spinner before the error is printed when the retries run out", async () => {
    cli.stubs.on("GET /pets?limit=20", limited, 2);
    const run = await cli.run(["list", "--max-retries", "1"], { stderrTTY: true });
    expect(run.code).toBe(5);
    expect(run.io.spinnerEvents.map((e) => e.event)).toEqual(["start", "stop"]);
    expect(run.err).toMatch(
      /^rate limited; retrying in [^\n]*\n[^\n]*error:[^\n]* rate limited \(429\): the per-minute limit/,
    );
  });

  it("logs each attempt with --verbose, the key redacted", async () => {
    cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, "[]"));
    const run = await cli.run(["list", "--verbose"]);
    expect(run.err).toMatch(
      /^GET http:\/\/127\.0\.0\.1:9\/v1\/pets\?limit=20 -> 200 in \d+ ms; rate limit 59\/60 left, resets [^;]+; key psk_…cdef\n$/,
    );
  });

  it("logs each attempt with PETSTORE_DEBUG=1 as well", async () => {
    cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, "[]"));
    const run = await cli.run(["list"], { env: { PETSTORE_DEBUG: "1" } });
    expect(run.err).toMatch(/-> 200 in/);
  });
});
