import { afterEach, describe, expect, it } from "vitest";
import { PLAN_LIMITS } from "../../src/server/keys.js";
import { RateBucket, takeRequest } from "../../src/server/auth.js";
import { DEFAULT_BAN_POLICY } from "../../src/server/serve-defaults.js";
import { call, manualClock, startTestServer, type Answer } from "./http.js";

/** 12:00:01 UTC: a minute window ends 59 s later, the day window 12 h later. */
const NOON = Date.UTC(2030, 0, 15, 12, 0, 1);
const MINUTE_END_S = Date.UTC(2030, 0, 15, 12, 1, 0) / 1000;
const MIDNIGHT_S = Date.UTC(2030, 0, 16) / 1000;

let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function limitOf(answer: Answer) {
  return {
    limit: Number(answer.headers["x-ratelimit-limit"]),
    remaining: Number(answer.headers["x-ratelimit-remaining"]),
    reset: Number(answer.headers["x-ratelimit-reset"]),
    retryAfter:
      answer.headers["retry-after"] === undefined
        ? undefined
        : Number(answer.headers["retry-after"]),
    code: answer.status >= 400 ? (JSON.parse(answer.text) as { code: string }).code : undefined,
  };
}

async function sendMany(base: string, count: number, key?: string): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < count; i++) answers.push(await call(base, "/v1/pets?limit=1", { key }));
  return answers;
}

function expectRetryAfterConsistent(answer: Answer, nowMs: number): void {
  const { reset, retryAfter } = limitOf(answer);
  expect(retryAfter).toBeGreaterThan(0);
  // Waiting Retry-After never ends before the reset, and by less than a second after it.
  expect(nowMs + retryAfter! * 1000).toBeGreaterThanOrEqual(reset * 1000);
  expect(nowMs + retryAfter! * 1000 - reset * 1000).toBeLessThan(1000);
}

describe("the free plan over HTTP", () => {
  it("allows 60 requests a minute, then 429 with Retry-After consistent with the reset", async () => {
    const clock = manualClock(NOON);
    server = await startTestServer({ keys: ["free-key"], clock });
    const answers = await sendMany(server.url, 60, "free-key");
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.map((a) => limitOf(a).remaining)).toEqual(
      Array.from({ length: 60 }, (_, i) => 59 - i),
    );
    expect(answers.every((a) => limitOf(a).limit === 60 && limitOf(a).reset === MINUTE_END_S)).toBe(
      true,
    );

    clock.advance(20_500);
    const limited = await call(server.url, "/v1/pets", { key: "free-key" });
    expect(limited.status).toBe(429);
    expect(limited.headers["content-type"]).toBe("application/json");
    expect(limitOf(limited)).toEqual({
      limit: 60,
      remaining: 0,
      reset: MINUTE_END_S,
      retryAfter: 39,
      code: "rate_limited",
    });
    expectRetryAfterConsistent(limited, clock.now());
    // Date comes from the same clock as the limits, so clients can reason about Reset.
    expect(limited.headers.date).toBe(new Date(clock.now()).toUTCString());

    clock.set(MINUTE_END_S * 1000);
    const next = await call(server.url, "/v1/pets", { key: "free-key" });
    expect(next.status).toBe(200);
    expect(limitOf(next)).toMatchObject({ limit: 60, remaining: 59, reset: MINUTE_END_S + 60 });
    expect(server.stats().byStatus[429]).toBe(1);
  });

  it("puts the rate-limit headers on 200, 400, 401, 404, 405 and 429 alike", async () => {
    const clock = manualClock(NOON);
    server = await startTestServer({ keys: ["free-key"], clock });
    const key = "free-key";
    const statuses: number[] = [];
    const remaining: number[] = [];
    for (const [path, method] of [
      ["/v1/pets", "GET"],
      ["/v1/pets?limit=0", "GET"],
      ["/v1/pets/77", "GET"],
      ["/v1/pets", "DELETE"],
    ] as const) {
      const answer = await call(server.url, path, { key, method });
      statuses.push(answer.status);
      remaining.push(limitOf(answer).remaining);
    }
    expect(statuses).toEqual([200, 400, 404, 405]);
    expect(remaining).toEqual([59, 58, 57, 56]);
    const unauthorized = await call(server.url, "/v1/pets", { key: "not-a-key" });
    expect(unauthorized.status).toBe(401);
    expect(limitOf(unauthorized)).toMatchObject({ limit: 60, remaining: 59, reset: MINUTE_END_S });
    await sendMany(server.url, 56, key);
    const limited = await call(server.url, "/v1/pets/77", { key });
    expect(limited.status).toBe(429);
    expect(limitOf(limited)).toMatchObject({ limit: 60, remaining: 0 });
    expect(limited.headers.deprecation).toBe("@1735689600");
  });

  it("bans a client that keeps sending while limited, then lets it back", async () => {
    const clock = manualClock(NOON);
    server = await startTestServer({ keys: ["free-key"], clock });
    await sendMany(server.url, 60, "free-key");
    const rejected = await sendMany(server.url, DEFAULT_BAN_POLICY.banAfter, "free-key");
    expect(rejected.map((a) => limitOf(a).code)).toEqual(
      Array(DEFAULT_BAN_POLICY.banAfter).fill("rate_limited"),
    );
    const banned = await call(server.url, "/v1/pets", { key: "free-key" });
    expect(banned.status).toBe(429);
    expect(limitOf(banned)).toMatchObject({ code: "banned", remaining: 0, retryAfter: 600 });
    expectRetryAfterConsistent(banned, clock.now());

    // The minute window resets, the ban does not.
    clock.advance(61_000);
    const stillBanned = await call(server.url, "/v1/pets", { key: "free-key" });
    expect(limitOf(stillBanned)).toMatchObject({ code: "banned", retryAfter: 539 });
    expectRetryAfterConsistent(stillBanned, clock.now());

    clock.advance(539_000);
    const back = await call(server.url, "/v1/pets", { key: "free-key" });
    expect(back.status).toBe(200);
  });

  it("forgets the rejections of a ban that ended: a polite request gets a plain 429, not a new ban", async () => {
    const clock = manualClock(NOON);
    server = await startTestServer({
      keys: ["free-key"],
      clock,
      ban: { banAfter: 2, banMs: 30_000 },
    });
    await sendMany(server.url, 60, "free-key");
    const codes = (await sendMany(server.url, 3, "free-key")).map((a) => limitOf(a).code);
    expect(codes).toEqual(["rate_limited", "rate_limited", "banned"]);

    // The ban ends at 12:00:31; the minute window is still exhausted until 12:01:00.
    clock.advance(30_000);
    const polite = await call(server.url, "/v1/pets", { key: "free-key" });
    expect(limitOf(polite)).toEqual({
      limit: 60,
      remaining: 0,
      reset: MINUTE_END_S,
      retryAfter: 29,
      code: "rate_limited",
    });
    // A client that keeps pushing is banned again after the same number of rejections.
    const again = (await sendMany(server.url, 2, "free-key")).map((a) => limitOf(a).code);
    expect(again).toEqual(["rate_limited", "banned"]);
  });

  it("after a ban, with the day exhausted, says the day's real reset in Retry-After", async () => {
    const clock = manualClock(NOON);
    server = await startTestServer({ keys: ["day:enterprise:5/8"], clock });
    await sendMany(server.url, 5, "day");
    clock.advance(60_000);
    await sendMany(server.url, 3, "day");
    const rejected = await sendMany(server.url, DEFAULT_BAN_POLICY.banAfter + 1, "day");
    expect(rejected.map((a) => limitOf(a).code).at(-1)).toBe("banned");

    clock.advance(DEFAULT_BAN_POLICY.banMs);
    const polite = await call(server.url, "/v1/pets", { key: "day" });
    expect(limitOf(polite)).toEqual({
      limit: 8,
      remaining: 0,
      reset: MIDNIGHT_S,
      retryAfter: MIDNIGHT_S - clock.now() / 1000,
      code: "rate_limited",
    });
    expectRetryAfterConsistent(polite, clock.now());
  });

  it("takes the ban threshold and length from the options", async () => {
    const clock = manualClock(NOON);
    server = await startTestServer({
      keys: ["free-key"],
      clock,
      ban: { banAfter: 2, banMs: 30_000 },
    });
    await sendMany(server.url, 60, "free-key");
    const codes = (await sendMany(server.url, 3, "free-key")).map((a) => limitOf(a).code);
    expect(codes).toEqual(["rate_limited", "rate_limited", "banned"]);
    const banned = await call(server.url, "/v1/pets", { key: "free-key" });
    expect(limitOf(banned).retryAfter).toBe(30);
  });

  it("limits requests without a valid key per client address, with free-plan limits", async () => {
    const clock = manualClock(NOON);
    server = await startTestServer({ keys: ["free-key"], clock });
    const anonymous = await sendMany(server.url, 60);
    expect(anonymous.every((a) => a.status === 401)).toBe(true);
    expect(limitOf(anonymous[59]!)).toMatchObject({ limit: 60, remaining: 0 });
    const limited = await call(server.url, "/v1/openapi.json");
    expect(limitOf(limited)).toMatchObject({ code: "rate_limited", retryAfter: 59 });
    const keyed = await call(server.url, "/v1/pets", { key: "free-key" });
    expect(keyed.status).toBe(200);
    expect(limitOf(keyed).remaining).toBe(59);
  });
});

describe("windows and plans", () => {
  it("reports the day window when it binds first, and resets it at UTC midnight", async () => {
    const clock = manualClock(NOON);
    server = await startTestServer({ keys: ["ent:enterprise:5/8"], clock });
    const first = await sendMany(server.url, 5, "ent");
    expect(limitOf(first[4]!)).toMatchObject({ limit: 5, remaining: 0, reset: MINUTE_END_S });

    clock.advance(60_000);
    const second = await sendMany(server.url, 3, "ent");
    expect(second.map((a) => limitOf(a))).toMatchObject([
      { limit: 8, remaining: 2, reset: MIDNIGHT_S },
      { limit: 8, remaining: 1, reset: MIDNIGHT_S },
      { limit: 8, remaining: 0, reset: MIDNIGHT_S },
    ]);
    const limited = await call(server.url, "/v1/pets", { key: "ent" });
    expect(limitOf(limited)).toMatchObject({ code: "rate_limited", limit: 8, reset: MIDNIGHT_S });
    expectRetryAfterConsistent(limited, clock.now());

    clock.set(MIDNIGHT_S * 1000 + 10);
    const nextDay = await call(server.url, "/v1/pets", { key: "ent" });
    expect(nextDay.status).toBe(200);
    expect(limitOf(nextDay)).toMatchObject({ limit: 5, remaining: 4 });
  });

  it("gives an unlimited key constant headers that never run out", async () => {
    const clock = manualClock(NOON);
    server = await startTestServer({ keys: ["big:enterprise"], clock });
    const answers = await sendMany(server.url, 70, "big");
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => JSON.stringify(limitOf(a))))).toEqual(
      new Set([
        JSON.stringify({
          limit: 2147483647,
          remaining: 2147483647,
          reset: MINUTE_END_S,
          retryAfter: undefined,
          code: undefined,
        }),
      ]),
    );
  });

  it("counts the free plan's 1,000 a day across minutes", () => {
    const bucket = new RateBucket();
    let now = Date.UTC(2030, 0, 15, 0, 0, 0);
    const decisions = [];
    for (let minute = 0; minute < 17; minute++) {
      for (let i = 0; i < 60; i++) {
        decisions.push(takeRequest(bucket, PLAN_LIMITS.free, now, { banAfter: 1e9, banMs: 0 }));
      }
      now += 60_000;
    }
    const allowed = decisions.filter((d) => d.verdict === "allowed");
    expect(allowed).toHaveLength(1000);
    expect(allowed[999]).toMatchObject({ limit: 1000, remaining: 0 });
    // Within the 17th minute, the day runs out after 40 requests.
    expect(decisions[16 * 60 + 40]).toMatchObject({
      verdict: "rate_limited",
      limit: 1000,
      resetSeconds: Date.UTC(2030, 0, 16) / 1000,
    });
  });

  it("tells pro and business keys their plan's minute limit", async () => {
    server = await startTestServer({
      keys: ["p:pro", "b:business"],
      clock: manualClock(NOON),
    });
    expect(limitOf(await call(server.url, "/v1/pets", { key: "p" }))).toMatchObject({
      limit: 300,
      remaining: 299,
    });
    expect(limitOf(await call(server.url, "/v1/pets", { key: "b" }))).toMatchObject({
      limit: 1000,
      remaining: 999,
    });
  });
});
