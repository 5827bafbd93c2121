/**
 * The outcomes of `add --from` on stdout: the exact NDJSON lines of `--json`, and
 * the ids of `-q` in input order whatever order rows finish in, with a bounded buffer.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Outcomes, WINDOW, type StdoutMode } from "../../src/bulk/outcomes.js";
import { createTestIO } from "../test-io.js";
import { parseJson } from "../../src/schema/json.js";

const tick = () => new Promise((resolve) => setImmediate(resolve));

const plan = { rows: 0, invalid: 0, previouslyAdded: 0, heldUnknown: 0, toSend: 0 };

/** The outcomes of a run without a results file, to `io`'s stdout. */
function streamTo(io: ReturnType<typeof createTestIO>, mode: StdoutMode, window?: number) {
  return new Outcomes(plan, io, Date.now, undefined, mode, window);
}

describe("--json", () => {
  it("writes one line per outcome, ids exact, in the order outcomes are known", async () => {
    const io = createTestIO();
    const stream = streamTo(io, "json");
    expect(stream.room(1)).toBeUndefined();
    stream.sending(1);
    stream.record({ row: 2, line: 3, outcome: "added", id: 9223372036854775807n });
    stream.record({
      row: 1,
      line: 2,
      outcome: "invalid",
      problems: [
        { field: "status", message: "must be one of available, pending, sold" },
        { message: "x" },
      ],
    });
    stream.record({
      row: 3,
      line: 5,
      outcome: "failed",
      error: { message: "the service refused it", status: 400, code: "invalid_body" },
      digest: "0123456789abcdef",
    });
    stream.record({ row: 4, line: 6, outcome: "unknown", error: { message: "timed out" } });
    stream.record({ row: 5, line: 7, outcome: "added" });
    stream.earlier(6, 8, "added", -9223372036854775808n);
    stream.earlier(7, 9, "unknown");
    stream.settled(1);
    expect(io.out().split("\n")).toEqual([
      '{"row":2,"line":3,"outcome":"added","id":9223372036854775807}',
      '{"row":1,"line":2,"outcome":"invalid","error":{"message":"status must be one of available, pending, sold; x","problems":[{"field":"status","message":"must be one of available, pending, sold"},{"message":"x"}]}}',
      '{"row":3,"line":5,"outcome":"failed","error":{"message":"the service refused it","status":400,"code":"invalid_body"}}',
      '{"row":4,"line":6,"outcome":"unknown","error":{"message":"timed out"}}',
      '{"row":5,"line":7,"outcome":"added"}',
      '{"row":6,"line":8,"outcome":"added","id":-9223372036854775808,"earlier":true}',
      '{"row":7,"line":9,"outcome":"unknown","earlier":true,"error":{"message":"an earlier run sent this row and its outcome is unknown; it was not sent again (--retry-unknown sends it)"}}',
      "",
    ]);
    for (const line of io.out().trimEnd().split("\n")) expect(() => parseJson(line)).not.toThrow();
  });
});

type Kind = "added" | "failed" | "before" | "invalid" | "none";

/**
 * Drives the outcomes as the engine does: rows read in order, each waiting for room
 * first (rows not sent get their outcome as they are read), the rows to send taken
 * in order by `concurrency` senders, answers coming back in the order `picks` chooses.
 */
async function drive(
  kinds: Kind[],
  concurrency: number,
  window: number,
  picks: number[],
): Promise<{ out: string; maxHeld: number }> {
  const io = createTestIO();
  const stream = streamTo(io, "ids", window);
  async function* toSend(): AsyncGenerator<number> {
    for (let row = 1; row <= kinds.length; row++) {
      await stream.room(row);
      const kind = kinds[row - 1];
      if (kind === "before") stream.earlier(row, row + 1, "added", 1000n + BigInt(row));
      else if (kind === "invalid") stream.record({ row, line: row + 1, outcome: "invalid" });
      else {
        stream.sending(row);
        yield row;
      }
    }
  }
  const rows = toSend();
  const inFlight: Array<{ row: number; answer: () => void }> = [];
  let maxHeld = 0;
  let sendersLeft = concurrency;
  const sender = async () => {
    for (let next = await rows.next(); next.done !== true; next = await rows.next()) {
      const row = next.value;
      await new Promise<void>((answer) => inFlight.push({ row, answer }));
      const kind = kinds[row - 1];
      if (kind === "added")
        stream.record({ row, line: row + 1, outcome: "added", id: 5000n + BigInt(row) });
      else if (kind === "failed") stream.record({ row, line: row + 1, outcome: "failed" });
      stream.settled(row);
      maxHeld = Math.max(maxHeld, stream.heldRows);
    }
    sendersLeft--;
  };
  const senders = Array.from({ length: concurrency }, sender);
  let pick = 0;
  let idle = 0;
  while (sendersLeft > 0) {
    await tick();
    if (inFlight.length === 0) {
      if (++idle > 100) throw new Error("no row in flight and senders waiting: a deadlock");
      continue;
    }
    idle = 0;
    const index = (picks[pick++ % picks.length] ?? 0) % inFlight.length;
    inFlight.splice(index, 1)[0]!.answer();
  }
  await Promise.all(senders);
  return { out: io.out(), maxHeld };
}

function expectedIds(kinds: Kind[]): string {
  return kinds
    .map((kind, i) =>
      kind === "added" ? `${5000 + i + 1}\n` : kind === "before" ? `${1000 + i + 1}\n` : "",
    )
    .join("");
}

describe("-q", () => {
  it("prints the ids of the added rows in input order, whatever order answers come in, within a bounded buffer", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom<Kind>("added", "added", "failed", "before", "invalid", "none"), {
          minLength: 0,
          maxLength: 120,
        }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 50 }),
        async (kinds, concurrency, window, picks) => {
          const { out, maxHeld } = await drive(kinds, concurrency, window, picks);
          expect(out).toBe(expectedIds(kinds));
          expect(maxHeld).toBeLessThanOrEqual(window + concurrency);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("holds a row back while it is the window's width ahead of the first row not printed", async () => {
    const io = createTestIO();
    const stream = streamTo(io, "ids", 3);
    for (const row of [1, 2, 3]) {
      expect(stream.room(row)).toBeUndefined();
      stream.sending(row);
    }
    let fourth = false;
    void stream.room(4)!.then(() => (fourth = true));
    stream.record({ row: 3, line: 4, outcome: "added", id: 33n });
    stream.record({ row: 2, line: 3, outcome: "added", id: 22n });
    await tick();
    expect(fourth).toBe(false);
    expect(io.out()).toBe("");
    stream.record({ row: 1, line: 2, outcome: "added", id: 11n });
    await tick();
    expect(fourth).toBe(true);
    expect(io.out()).toBe("11\n22\n33\n");
  });

  it("at its real width, lets 4,096 rows go past one still sending and holds the 4,097th", async () => {
    const io = createTestIO();
    const stream = streamTo(io, "ids");
    for (let row = 1; row <= WINDOW; row++) {
      expect(stream.room(row), String(row)).toBeUndefined();
      stream.sending(row);
    }
    for (let row = 2; row <= WINDOW; row++) {
      stream.record({ row, line: row + 1, outcome: "added", id: BigInt(row) });
    }
    let released = false;
    void stream.room(WINDOW + 1)!.then(() => (released = true));
    await tick();
    expect([released, io.out()]).toEqual([false, ""]);
    stream.record({ row: 1, line: 2, outcome: "added", id: 1n });
    await tick();
    expect(released).toBe(true);
    const ids = io.out().trimEnd().split("\n");
    expect(ids).toHaveLength(WINDOW);
    expect(ids.at(-1)).toBe(String(WINDOW));
  });

  it("prints the ids of rows added before, past the last row sent, once the run ends", () => {
    const io = createTestIO();
    const stream = streamTo(io, "ids");
    stream.sending(1);
    stream.earlier(2, 3, "added", 20n);
    stream.earlier(3, 4, "added", 30n);
    stream.record({ row: 1, line: 2, outcome: "added", id: 7n });
    stream.settled(1);
    expect(io.out()).toBe("7\n20\n30\n");
  });

  it("stops at the last row the run reached: rows never read print nothing, even if added before", () => {
    const io = createTestIO();
    const stream = streamTo(io, "ids");
    stream.earlier(1, 2, "added", 1n);
    stream.sending(2);
    stream.settled(2);
    // Row 3, added before, was never read: the run stopped after row 2.
    expect(io.out()).toBe("1\n");
  });
});
