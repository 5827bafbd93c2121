import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { RowsAhead } from "../../src/bulk/rows-ahead.js";

/** A full garbage collection, without starting the test runner with --expose-gc. */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

function* numbers(count: number, read: { count: number }): Generator<number> {
  for (let n = 1; n <= count; n++) {
    read.count++;
    yield n;
  }
}

describe("rows read ahead", () => {
  it("holds at most its size however long the input, when refilled before it drains", () => {
    // As the engine uses it: a row taken per request, a refill after each group leaves.
    const read = { count: 0 };
    const ahead = new RowsAhead(numbers(10_000, read), 64);
    const seen: number[] = [];
    let mostHeld = 0;
    for (;;) {
      const row = ahead.next();
      if (row === undefined) break;
      seen.push(row);
      if (row % 3 === 0) ahead.fill();
      mostHeld = Math.max(mostHeld, ahead.held);
    }
    expect(seen).toEqual(Array.from({ length: 10_000 }, (_, i) => i + 1));
    expect(mostHeld).toBeLessThanOrEqual(64);
    expect(ahead.held).toBe(0);
  });

  it("lets go of every row it has handed out, in the middle of a run", async () => {
    function* rows(): Generator<{ row: number }> {
      for (let row = 1; row <= 5_000; row++) yield { row };
    }
    const ahead = new RowsAhead(rows(), 64);
    const handedOut: Array<WeakRef<{ row: number }>> = [];
    // Half the rows, a refill after each as the engine does: the input is not drained.
    for (let taken = 0; taken < 2_500; taken++) {
      handedOut.push(new WeakRef(ahead.next()!));
      ahead.fill();
    }
    expect(ahead.held).toBe(64);
    // WeakRefs made in this turn hold their targets until it ends.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    const kept = handedOut.filter((ref) => ref.deref() !== undefined);
    expect(kept.map((ref) => ref.deref()!.row)).toEqual([]);
  });

  it("reads no further than its size ahead of what was taken", () => {
    const read = { count: 0 };
    const ahead = new RowsAhead(numbers(100, read), 8);
    expect(ahead.next()).toBe(1);
    expect(read.count).toBe(8);
    ahead.fill();
    expect(read.count).toBe(9);
    expect(ahead.held).toBe(8);
    expect([ahead.next(), ahead.next()]).toEqual([2, 3]);
    expect(read.count).toBe(9);
  });

  it("stops reading the input once closed", () => {
    const read = { count: 0 };
    const source = numbers(100, read);
    const ahead = new RowsAhead(source, 4);
    expect(ahead.next()).toBe(1);
    ahead.close();
    ahead.fill();
    expect(read.count).toBe(4);
    expect(source.next().done).toBe(true);
  });
});
