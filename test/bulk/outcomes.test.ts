import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBulkAdd } from "../../src/bulk/engine.js";
import { digestOf } from "../../src/bulk/rows.js";
import type { Transport, TransportRequest, TransportResponse } from "../../src/client/transport.js";
import { DEFAULT_RETRY_POLICY } from "../../src/client/retry.js";
import { EXIT, NetworkError } from "../../src/errors.js";
import { parseJson } from "../../src/schema/json.js";
import {
  csvOf,
  deps,
  finalOutcomes,
  options,
  resultLines,
  tempDir,
  writeInput,
} from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir()));
afterAll(() => cleanup());

const BASE = "http://127.0.0.1:9/v1";

function answer(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): TransportResponse {
  const reset = String(Math.floor(Date.now() / 60_000) * 60 + 60);
  return {
    status,
    headers: {
      "x-ratelimit-limit": "1000",
      "x-ratelimit-remaining": "900",
      "x-ratelimit-reset": reset,
      "content-type": "application/json",
      ...headers,
    },
    body: JSON.stringify(body),
  };
}

const created = (request: TransportRequest, id: number) =>
  answer(201, { id, ...(JSON.parse(request.body!) as object) });
const error = (status: number, code: string, headers: Record<string, string> = {}) =>
  answer(status, { code, message: `${code} here`, status }, headers);

/** A transport that answers by the pet's name; records when each request arrived. */
function scripted(
  reply: (name: string, attempt: number, request: TransportRequest) => TransportResponse | Error,
) {
  const attempts = new Map<string, number>();
  const log: Array<{ name: string; at: number }> = [];
  let ids = 0;
  const transport: Transport = async (request) => {
    const name = (parseJson(request.body!) as { name: string }).name;
    const attempt = (attempts.get(name) ?? 0) + 1;
    attempts.set(name, attempt);
    log.push({ name, at: Date.now() });
    const outcome = reply(name, attempt, request);
    if (outcome instanceof Error) throw outcome;
    if (outcome.status !== 201) return outcome;
    const pet = created(request, ++ids);
    return outcome.headers === undefined ? pet : { ...pet, headers: outcome.headers };
  };
  return { transport, log, attempts };
}

const ok = { status: 201 } as TransportResponse;
const summary = { method: "POST", url: BASE };

describe("what each answer means for the row and for the run", () => {
  it("waits out a 503's Retry-After, sends the row again, and adds it", async () => {
    const input = await writeInput(dir, "503.csv", csvOf(2, "s"));
    const script = scripted((name, attempt) =>
      name === "s-1" && attempt === 1 ? error(503, "fault_injected", { "retry-after": "1" }) : ok,
    );
    const report = await runBulkAdd(
      options(input, { concurrency: 1 }),
      deps(BASE, { transport: script.transport }),
    );
    expect(report).toMatchObject({ added: 2, exitCode: 0 });
    const [first, again] = script.log.filter((entry) => entry.name === "s-1");
    expect(again!.at - first!.at).toBeGreaterThanOrEqual(1_000);
  });

  it("on a 429 waits for Retry-After before any request, then sends the row again", async () => {
    const input = await writeInput(dir, "429.csv", csvOf(3, "t"));
    const script = scripted((name, attempt) =>
      name === "t-1" && attempt === 1
        ? error(429, "rate_limited", {
            "retry-after": "1",
            "x-ratelimit-remaining": "0",
            "x-ratelimit-reset": String(Math.ceil(Date.now() / 1000) + 1),
          })
        : ok,
    );
    const results = join(dir, "429.results");
    const report = await runBulkAdd(
      options(input, { concurrency: 1, results }),
      deps(BASE, { transport: script.transport }),
    );
    expect(report).toMatchObject({ added: 3, exitCode: 0 });
    const limitedAt = script.log[0]!.at;
    expect(script.log.slice(1).every((entry) => entry.at - limitedAt >= 1_000)).toBe(true);
    const lines = (await resultLines(results)).filter((l) => l.row === 1n).map((l) => l.outcome);
    expect(lines).toEqual(["sending", "added"]);
  });

  it("records a reset after sending as unknown, goes on, and exits 7", async () => {
    const input = await writeInput(dir, "reset.csv", csvOf(3, "r"));
    const results = join(dir, "reset.results");
    const script = scripted((name) =>
      name === "r-2" ? new NetworkError("127.0.0.1:9 reset the connection", summary, true) : ok,
    );
    const report = await runBulkAdd(
      options(input, { results }),
      deps(BASE, { transport: script.transport }),
    );
    expect(report).toMatchObject({
      added: 2,
      unknown: 1,
      unknownRows: [2],
      exitCode: EXIT.OUTCOME_UNKNOWN,
    });
    expect(script.attempts.get("r-2")).toBe(1);
    const unknown = finalOutcomes(await resultLines(results)).get(2)!;
    expect(unknown.outcome).toBe("unknown");
    expect(String((unknown.error as { message: string }).message)).toContain(
      "may or may not have been added",
    );
  });

  it("treats a 500 to a POST as unknown: the pet may have been stored", async () => {
    const input = await writeInput(dir, "500.csv", csvOf(1, "f"));
    const script = scripted(() => error(500, "internal_error"));
    const report = await runBulkAdd(options(input), deps(BASE, { transport: script.transport }));
    expect(report).toMatchObject({ unknown: 1, exitCode: EXIT.OUTCOME_UNKNOWN });
    expect(script.attempts.get("f-1")).toBe(1);
  });

  it("records a 400 as failed for that row and goes on with the others (exit 2)", async () => {
    const input = await writeInput(dir, "400.csv", csvOf(3, "b"));
    const results = join(dir, "400.results");
    const script = scripted((name) => (name === "b-2" ? error(400, "invalid_body") : ok));
    const report = await runBulkAdd(
      options(input, { results }),
      deps(BASE, { transport: script.transport }),
    );
    expect(report).toMatchObject({ added: 2, failed: 1, exitCode: EXIT.USAGE });
    expect(finalOutcomes(await resultLines(results)).get(2)).toMatchObject({
      outcome: "failed",
      error: { status: 400n, code: "invalid_body" },
    });
  });

  it("stops at a 401: the rest is left unsent for --resume (exit 3)", async () => {
    const input = await writeInput(dir, "401.csv", csvOf(20, "a"));
    const results = join(dir, "401.results");
    const script = scripted(() => error(401, "invalid_key"));
    const report = await runBulkAdd(
      options(input, { results, concurrency: 1 }),
      deps(BASE, { transport: script.transport }),
    );
    expect(report).toMatchObject({ added: 0, failed: 1, notSent: 19, exitCode: EXIT.AUTH });
    expect(script.log).toHaveLength(1);
    expect([...finalOutcomes(await resultLines(results)).keys()]).toEqual([1]);
  });

  it("retries a refused connection with backoff, then stops (exit 6) with the row failed, not unknown", async () => {
    const input = await writeInput(dir, "down.csv", csvOf(5, "d"));
    const results = join(dir, "down.results");
    const script = scripted(() => new NetworkError("could not connect", summary, false));
    const report = await runBulkAdd(
      options(input, { results, concurrency: 1 }),
      deps(BASE, { transport: script.transport }),
    );
    expect(report).toMatchObject({ failed: 1, unknown: 0, notSent: 4, exitCode: EXIT.NETWORK });
    expect(script.attempts.get("d-1")).toBe(5);
    expect(finalOutcomes(await resultLines(results)).get(1)?.outcome).toBe("failed");
  });

  it("stops (exit 5) rather than wait hours for the daily limit, with the rest left for --resume", async () => {
    const input = await writeInput(dir, "daily.csv", csvOf(3, "y"));
    const tomorrow = String(Math.floor(Date.now() / 86_400_000 + 1) * 86_400);
    const script = scripted(() => ({
      ...answer(201, {}),
      headers: {
        "x-ratelimit-limit": "1000",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": tomorrow,
      },
    }));
    const report = await runBulkAdd(
      options(input, { concurrency: 1 }),
      deps(BASE, { transport: script.transport }),
    );
    expect(report).toMatchObject({ added: 1, notSent: 2, exitCode: EXIT.RATE_LIMITED });
    expect(report.stopped?.message).toMatch(/the rate limit allows no more requests until .* UTC/);
    expect(script.log).toHaveLength(1);
  });

  it("names the end of a 429's wait too long to make, even with no other row waiting", async () => {
    const input = await writeInput(dir, "far429.csv", csvOf(2, "f"));
    const tomorrow = String(Math.floor(Date.now() / 86_400_000 + 1) * 86_400);
    const script = scripted(() =>
      error(429, "rate_limited", {
        "x-ratelimit-limit": "1000",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": tomorrow,
      }),
    );
    const report = await runBulkAdd(
      options(input, { concurrency: 1 }),
      deps(BASE, { transport: script.transport }),
    );
    expect(report).toMatchObject({ failed: 1, notSent: 1, exitCode: EXIT.RATE_LIMITED });
    expect(report.stopped?.message).toMatch(/the rate limit allows no more requests until .* UTC/);
  });

  it("with --no-retry stops at the first refusal", async () => {
    const input = await writeInput(dir, "noretry.csv", csvOf(2, "n"));
    const script = scripted(() => error(503, "fault_injected", { "retry-after": "1" }));
    const report = await runBulkAdd(
      options(input, {
        concurrency: 1,
        retry: { ...DEFAULT_RETRY_POLICY, limit: 0, backoffBase: 1, backoffLimit: 1 },
      }),
      deps(BASE, { transport: script.transport }),
    );
    expect(report).toMatchObject({ failed: 1, exitCode: EXIT.NETWORK });
    expect(script.log).toHaveLength(1);
  });
});

describe("the results file and the requests", () => {
  it("has each row's sending line on disk before its request leaves, a turn's rows in one write", async () => {
    const from = await writeInput(dir, "before.csv", csvOf(40, "early"));
    const results = join(dir, "before.results");
    const writes: number[] = [];
    let missing = 0;
    let ids = 0;
    const transport: Transport = async (request) => {
      // Read synchronously, as the request leaves: the row's `sending` line must be there.
      const text = readFileSync(results, "utf8");
      writes.push(text.split("\n").length);
      const digest = digestOf(request.body!);
      if (!text.includes(`"outcome":"sending","digest":"${digest}"`)) missing++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return created(request, ++ids);
    };
    const report = await runBulkAdd(
      options(from, { results, concurrency: 8 }),
      deps(BASE, { transport }),
    );
    expect(report.added).toBe(40);
    expect(missing).toBe(0);
    // Rows sent together saw the same file: their lines were written together.
    expect(new Set(writes).size).toBeLessThan(writes.length);
  });
});
