/**
 * The outcomes of `add --from` on stdout: the exact NDJSON lines of `--json`, and
 * the ids of `-q` in input order whatever order rows finish in, with a bounded buffer.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OutcomeStream, WINDOW } from "../../src/bulk/outcome-stream.js";
import { createTestIO } from "../../src/io/test-io.js";
import { parseJson } from "../../src/schema/json.js";

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("--json", () => {
  it("writes one line per outcome, ids exact, in the order outcomes are known", async () => {
    const io = createTestIO();
    const stream = new OutcomeStream("json", io.stdout, () => undefined);
    expect(stream.taken(1)).toBeUndefined();
    stream.added(2, 3, 9223372036854775807n);
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
    stream.added(5, 7, undefined);
    stream.addedBefore(6, 8, -9223372036854775808n);
    stream.unknownBefore(7, 9);
    stream.settled(1);
    expect(io.out()).toBe(""); // gathered until the end of the turn
    await tick();
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

  it("writes what it has at the end of the run without waiting for the turn", () => {
    const io = createTestIO();
    const stream = new OutcomeStream("json", io.stdout, () => undefined);
    stream.added(1, 2, 5n);
    stream.end();
    expect(io.out()).toBe('{"row":1,"line":2,"outcome":"added","id":5}\n');
  });

  it("writes at once past 64 KiB gathered in one turn (a long run of rows added before)", () => {
    const io = createTestIO();
    const stream = new OutcomeStream("json", io.stdout, () => undefined);
    let row = 0;
    while (io.out() === "") stream.addedBefore(++row, row + 1, BigInt(row));
    expect(io.out().length).toBeGreaterThanOrEqual(64 * 1024);
    expect(io.out().length).toBeLessThan(64 * 1024 + 100);
  });
});

type Kind = "added" | "failed" | "before" | "invalid" | "none";

/**
 * Drives a stream as the engine does: rows read in order (rows not sent get their
 * hook as they are read), sending rows taken in order by `concurrency` senders,
 * answers coming back in the order `picks` chooses.
 */
async function drive(
  kinds: Kind[],
  concurrency: number,
  window: number,
  picks: number[],
): Promise<{ out: string; maxHeld: number }> {
  const io = createTestIO();
  const idBefore = (row: number) => (kinds[row - 1] === "before" ? 1000n + BigInt(row) : undefined);
  const stream = new OutcomeStream("ids", io.stdout, idBefore, window);
  let read = 0;
  const nextToSend = (): number | undefined => {
    while (read < kinds.length) {
      const row = ++read;
      const kind = kinds[row - 1];
      if (kind === "before") stream.addedBefore(row, row + 1, idBefore(row));
      else if (kind === "invalid") stream.record({ row, line: row + 1, outcome: "invalid" });
      else return row;
    }
    return undefined;
  };
  const inFlight: Array<{ row: number; answer: () => void }> = [];
  let maxHeld = 0;
  let sendersLeft = concurrency;
  const sender = async () => {
    for (;;) {
      const row = nextToSend();
      if (row === undefined) break;
      const wait = stream.taken(row);
      if (wait !== undefined) await wait;
      await new Promise<void>((answer) => inFlight.push({ row, answer }));
      const kind = kinds[row - 1];
      if (kind === "added") stream.added(row, row + 1, 5000n + BigInt(row));
      else if (kind === "failed") stream.record({ row, line: row + 1, outcome: "failed" });
      stream.settled(row);
      maxHeld = Math.max(maxHeld, stream.held);
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
  stream.end();
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
    const stream = new OutcomeStream("ids", io.stdout, () => undefined, 3);
    expect(stream.taken(1)).toBeUndefined();
    expect(stream.taken(2)).toBeUndefined();
    expect(stream.taken(3)).toBeUndefined();
    let fourth = false;
    void stream.taken(4)!.then(() => (fourth = true));
    stream.added(3, 4, 33n);
    stream.added(2, 3, 22n);
    await tick();
    expect(fourth).toBe(false);
    expect(io.out()).toBe("");
    stream.added(1, 2, 11n);
    await tick();
    expect(fourth).toBe(true);
    expect(io.out()).toBe("11\n22\n33\n");
  });

  it("at its real width, lets 4,096 rows go past one still sending and holds the 4,097th", async () => {
    const io = createTestIO();
    const stream = new OutcomeStream("ids", io.stdout, () => undefined);
    for (let row = 1; row <= WINDOW; row++) expect(stream.taken(row), String(row)).toBeUndefined();
    for (let row = 2; row <= WINDOW; row++) stream.added(row, row + 1, BigInt(row));
    let released = false;
    void stream.taken(WINDOW + 1)!.then(() => (released = true));
    await tick();
    expect([released, io.out()]).toEqual([false, ""]);
    stream.added(1, 2, 1n);
    await tick();
    expect(released).toBe(true);
    const ids = io.out().trimEnd().split("\n");
    expect(ids).toHaveLength(WINDOW);
    expect(ids.at(-1)).toBe(String(WINDOW));
  });

  it("prints the ids of rows added before, past the last row sent, once the run ends", () => {
    const io = createTestIO();
    const stream = new OutcomeStream("ids", io.stdout, (row) =>
      row >= 2 ? BigInt(row * 10) : undefined,
    );
    stream.taken(1);
    stream.addedBefore(2, 3, 20n);
    stream.addedBefore(3, 4, 30n);
    stream.added(1, 2, 7n);
    stream.settled(1);
    stream.end();
    expect(io.out()).toBe("7\n20\n30\n");
  });

  it("stops at the last row the run reached: rows never read print nothing, even if added before", () => {
    const io = createTestIO();
    const stream = new OutcomeStream("ids", io.stdout, (row) => BigInt(row));
    stream.taken(2);
    stream.settled(2);
    stream.end();
    expect(io.out()).toBe("1\n");
  });
});
