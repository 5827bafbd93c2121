import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Pacer, realTimers, type Completion, type Timers } from "../../src/bulk/pacer.js";
import { RateBucket, takeRequest, type BanPolicy } from "../../src/server/auth.js";

const MARGIN = 250;
const MINUTE = 60_000;

function pacerAt() {
  return new Pacer({ marginMs: MARGIN, timers: realTimers });
}

const answered = (remaining: number, resetAt: number): Completion => ({
  limit: { remaining, resetAt },
  answered: true,
  counted: "yes",
});

describe("the pacer", () => {
  it("sends one request alone until a reading arrives, then as many as the reading allows", () => {
    const pacer = pacerAt();
    const first = pacer.issue();
    expect(pacer.decide(0)).toEqual({ go: false, reason: "probe" });
    pacer.complete(first, answered(3, MINUTE));
    const issued = [];
    while (pacer.decide(10).go) issued.push(pacer.issue());
    expect(issued).toHaveLength(3);
    expect(pacer.decide(10)).toEqual({ go: false, reason: "answers" });
  });

  it("counts requests in flight against Remaining and waits for the reset when nothing is left", () => {
    const pacer = pacerAt();
    pacer.complete(pacer.issue(), answered(2, MINUTE));
    const a = pacer.issue();
    const b = pacer.issue();
    expect(pacer.decide(0).go).toBe(false);
    // b's answer says 0 left: a was counted before it, so nothing may go until the reset.
    pacer.complete(b, answered(0, MINUTE));
    expect(pacer.decide(0)).toEqual({ go: false, reason: "limit", untilLocalMs: MINUTE + MARGIN });
    pacer.complete(a, answered(1, MINUTE));
    expect(pacer.decide(MINUTE + MARGIN - 1).go).toBe(false);
    expect(pacer.decide(MINUTE + MARGIN)).toEqual({ go: true });
  });

  it("subtracts a request that was cut off after sending: the service may have counted it", () => {
    const pacer = pacerAt();
    pacer.complete(pacer.issue(), answered(2, MINUTE));
    const lost = pacer.issue();
    pacer.complete(lost, { answered: false, counted: "maybe" });
    pacer.issue();
    expect(pacer.decide(0).go).toBe(false);
  });

  it("does not subtract a request answered 429 or one that never connected", () => {
    const pacer = pacerAt();
    pacer.complete(pacer.issue(), answered(2, MINUTE));
    pacer.complete(pacer.issue(), { answered: false, counted: "no" });
    expect(pacer.decide(0).go).toBe(true);
    pacer.issue();
    expect(pacer.decide(0).go).toBe(true);
  });

  it("keeps a request that finished after the reading was issued out of the reading's count", () => {
    const pacer = pacerAt();
    pacer.complete(pacer.issue(), answered(3, MINUTE));
    const slow = pacer.issue();
    const fast = pacer.issue();
    // fast was counted first (3 -> 2 left), then slow (1 left) finishes without headers.
    pacer.complete(fast, answered(2, MINUTE));
    pacer.complete(slow, { answered: false, counted: "maybe" });
    // The reading (2) may not include slow: 2 - 1 = 1 left.
    expect(pacer.decide(0).go).toBe(true);
    pacer.issue();
    expect(pacer.decide(0).go).toBe(false);
  });

  it("waits for the reset by the service's clock, known from the Date header", () => {
    const pacer = pacerAt();
    // The service's clock is 40 s ahead: its answer, dated 12:00:58, arrives at local 12:00:18.
    const local = Date.UTC(2030, 0, 1, 12, 0, 18);
    pacer.observeDate(new Date(local + 40_000).toUTCString(), local);
    const reset = Date.UTC(2030, 0, 1, 12, 1, 0);
    pacer.complete(pacer.issue(), answered(0, reset));
    const decision = pacer.decide(local);
    expect(decision).toEqual({ go: false, reason: "limit", untilLocalMs: reset - 40_000 + MARGIN });
  });

  it("holds every request during a pause, and lets them go without headers from the service", () => {
    const pacer = pacerAt();
    pacer.complete(pacer.issue(), { answered: true, counted: "yes" });
    pacer.pauseUntil(5_000);
    expect(pacer.decide(4_999)).toEqual({ go: false, reason: "pause", untilLocalMs: 5_000 });
    expect(pacer.decide(5_000).go).toBe(true);
  });

  it("keeps the longer of two pauses: a later, shorter one never ends a Retry-After early", () => {
    const pacer = pacerAt();
    pacer.complete(pacer.issue(), answered(100, MINUTE));
    const limited = pacer.issue();
    const unavailable = pacer.issue();
    // A 429 with Retry-After: 30 at 1 s, then a 503 whose backoff ends at 2.25 s.
    pacer.pauseUntil(1_000 + 30_000 + MARGIN);
    pacer.complete(limited, { answered: true, counted: "no" });
    pacer.pauseUntil(1_010 + 1_000 + MARGIN);
    pacer.complete(unavailable, { answered: true, counted: "yes" });
    for (const at of [2_260, 15_000, 31_249]) {
      expect(pacer.decide(at)).toEqual({ go: false, reason: "pause", untilLocalMs: 31_250 });
    }
    expect(pacer.decide(31_250).go).toBe(true);
  });
});

/** A discrete-event world: virtual time, the service's real limiter, random latencies. */
const WORLD_START = 1_000_000_000_000;

class World implements Timers {
  private time = WORLD_START;
  private events: Array<{ at: number; order: number; run: () => void }> = [];
  private order = 0;
  now = () => this.time;
  setTimeout = (callback: () => void, ms: number) => {
    const event = { at: this.time + ms, order: this.order++, run: callback };
    this.events.push(event);
    return event;
  };
  clearTimeout = (handle: unknown) => {
    this.events = this.events.filter((event) => event !== handle);
  };
  at(ms: number, run: () => void) {
    this.setTimeout(run, ms);
  }
  async run(until: () => boolean): Promise<void> {
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (until() || this.events.length === 0) return;
      this.events.sort((a, b) => a.at - b.at || a.order - b.order);
      const next = this.events.shift()!;
      this.time = Math.max(this.time, next.at);
      next.run();
    }
  }
}

interface Scenario {
  rows: number;
  concurrency: number;
  perMinute: number;
  perDay: number;
  /** Service clock minus local clock. */
  offsetMs: number;
  sendsDate: boolean;
  maxLatencyMs: number;
  cutOffRate: number;
  seed: number;
}

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function simulate(s: Scenario) {
  const world = new World();
  const rand = random(s.seed);
  const pacer = new Pacer({ marginMs: MARGIN, timers: world });
  const bucket = new RateBucket();
  const limits = { perMinute: s.perMinute, perDay: s.perDay };
  const ban: BanPolicy = { banAfter: 1_000_000, banMs: 1 };
  const verdicts = { allowed: 0, rate_limited: 0, banned: 0 };
  let cutOffs = 0;
  const started = world.now();
  let left = s.rows;
  let done = 0;

  const request = (): Promise<{ completion: Completion; date?: string; retryAfterMs?: number }> =>
    new Promise((resolve) => {
      const latency = () => 1 + Math.floor(rand() * s.maxLatencyMs);
      world.at(latency(), () => {
        const serviceNow = world.now() + s.offsetMs;
        const decision = takeRequest(bucket, limits, serviceNow, ban);
        verdicts[decision.verdict]++;
        const cutOff = decision.verdict === "allowed" && rand() < s.cutOffRate;
        if (cutOff) cutOffs++;
        const date = s.sendsDate ? new Date(serviceNow).toUTCString() : undefined;
        world.at(latency(), () => {
          if (cutOff) return resolve({ completion: { answered: false, counted: "maybe" } });
          const limit = { remaining: decision.remaining, resetAt: decision.resetSeconds * 1000 };
          const counted = decision.verdict === "allowed" ? "yes" : "no";
          const answer: { completion: Completion; date?: string; retryAfterMs?: number } = {
            completion: { limit, answered: true, counted },
          };
          if (date !== undefined) answer.date = date;
          if (decision.verdict !== "allowed")
            answer.retryAfterMs = decision.retryAfterSeconds * 1000;
          resolve(answer);
        });
      });
    });

  const worker = async () => {
    while (left > 0) {
      left--;
      for (;;) {
        const issued = await pacer.acquire();
        if (issued === undefined) return;
        const answer = await request();
        pacer.observeDate(answer.date, world.now());
        const pause =
          answer.retryAfterMs === undefined
            ? undefined
            : world.now() + answer.retryAfterMs + MARGIN;
        pacer.complete(issued, answer.completion, pause);
        if (answer.retryAfterMs === undefined) break;
      }
      done++;
    }
  };
  const workers = Array.from({ length: s.concurrency }, worker);
  await world.run(() => done === s.rows);
  await Promise.all(workers);
  return {
    verdicts,
    cutOffs,
    elapsedMs: world.now() - started,
    startServiceMs: started + s.offsetMs,
  };
}

describe("the pacer against the service's own limiter (simulated time)", () => {
  it("never earns a 429, whatever the concurrency, latency or clock offset", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          rows: fc.integer({ min: 1, max: 160 }),
          concurrency: fc.integer({ min: 1, max: 16 }),
          perMinute: fc.integer({ min: 1, max: 60 }),
          perDay: fc.integer({ min: 1, max: 400 }),
          offsetMs: fc.integer({ min: -90_000, max: 90_000 }),
          sendsDate: fc.boolean(),
          maxLatencyMs: fc.integer({ min: 1, max: 800 }),
          seed: fc.integer(),
        }),
        async (partial) => {
          const scenario: Scenario = { ...partial, cutOffRate: 0 };
          // Without Date headers the service's clock must be the local one.
          if (!scenario.sendsDate) scenario.offsetMs = 0;
          // Keep the runs within a simulated day: a daily limit far below the rows would wait for midnight.
          scenario.rows = Math.min(scenario.rows, scenario.perDay);
          const { verdicts } = await simulate(scenario);
          expect(verdicts.rate_limited).toBe(0);
          expect(verdicts.banned).toBe(0);
          expect(verdicts.allowed).toBeGreaterThanOrEqual(scenario.rows);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("earns at most one 429 per answer lost on the way back (the service counted it unseen)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          rows: fc.integer({ min: 1, max: 120 }),
          concurrency: fc.integer({ min: 1, max: 16 }),
          perMinute: fc.integer({ min: 1, max: 60 }),
          offsetMs: fc.integer({ min: -90_000, max: 90_000 }),
          maxLatencyMs: fc.integer({ min: 1, max: 800 }),
          cutOffRate: fc.constantFrom(0.05, 0.3),
          seed: fc.integer(),
        }),
        async (partial) => {
          const scenario: Scenario = { ...partial, perDay: 100_000, sendsDate: true };
          const { verdicts, cutOffs } = await simulate(scenario);
          expect(verdicts.rate_limited).toBeLessThanOrEqual(cutOffs);
          expect(verdicts.banned).toBe(0);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("takes the time the limit requires, plus at most a second and a margin per window", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          concurrency: fc.integer({ min: 1, max: 16 }),
          // Where in its minute the service's clock starts: early enough for 60 rows one by one.
          positionMs: fc.integer({ min: 0, max: 50_000 }),
          minutesApart: fc.integer({ min: -2, max: 2 }),
          seed: fc.integer(),
        }),
        async ({ concurrency, positionMs, minutesApart, seed }) => {
          const offsetMs = positionMs - (WORLD_START % MINUTE) + minutesApart * MINUTE;
          const scenario: Scenario = {
            rows: 150,
            concurrency,
            perMinute: 60,
            perDay: 1000,
            offsetMs,
            sendsDate: true,
            maxLatencyMs: 20,
            cutOffRate: 0,
            seed,
          };
          const { verdicts, elapsedMs, startServiceMs } = await simulate(scenario);
          expect(verdicts.rate_limited).toBe(0);
          // The last 30 rows cannot start before the second window after the current one.
          const thirdWindow = (Math.floor(startServiceMs / MINUTE) + 2) * MINUTE;
          const necessary = thirdWindow - startServiceMs;
          expect(elapsedMs).toBeGreaterThanOrEqual(necessary);
          expect(elapsedMs).toBeLessThanOrEqual(
            necessary + 2 * (1_000 + MARGIN) + 30 * 2 * 20 + 1_000,
          );
        },
      ),
      { numRuns: 20 },
    );
  });
});
