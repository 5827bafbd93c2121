import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../src/server/server.js";
import { datingProxy, ensureBuilt, runCli } from "./cli.js";
import { allPets, csvOf, finalOutcomes, resultLines, tempDir, writeInput } from "./helpers.js";

const MINUTE = 60_000;
let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  await ensureBuilt();
  ({ dir, cleanup } = await tempDir());
});
afterAll(() => cleanup());

describe("petstore add --from on a Free-plan key", () => {
  it("adds 150 rows with zero 429s, taking at least the time the limit makes necessary", async () => {
    // Shift the fake's clock so that its current minute ends about 2 s from now:
    // 150 rows then need this window (60), the next (60) and a third (30).
    const offset = (((58_000 - (Date.now() % MINUTE)) % MINUTE) + MINUTE) % MINUTE;
    const clock = { now: () => Date.now() + offset };
    const server = await startServer({ keys: ["free-key:free"], clock, quiet: true });
    const proxy = await datingProxy(server.url, clock.now);
    try {
      const input = await writeInput(dir, "free.csv", csvOf(150, "free"));
      const results = join(dir, "free.results");
      const startedService = clock.now();
      const run = await runCli(["add", "--from", input, "--results", results], {
        PETSTORE_BASE_URL: proxy.url,
        PETSTORE_API_KEY: "free-key",
        PETSTORE_CONFIG_DIR: dir,
      });
      const tookMs = clock.now() - startedService;
      expect(run.stderr).toContain("150 added");
      expect(run.code).toBe(0);
      const stats = server.stats();
      expect(stats.byStatus[429] ?? 0).toBe(0);
      expect(stats.byStatus[201]).toBe(150);
      // The last 30 rows cannot be sent before the service's third window opens.
      const thirdWindow = (Math.floor(startedService / MINUTE) + 2) * MINUTE;
      expect(tookMs).toBeGreaterThanOrEqual(thirdWindow - startedService);
      expect(allPets(server.store)).toHaveLength(150);
      const outcomes = finalOutcomes(await resultLines(results));
      expect([...outcomes.values()].filter((line) => line.outcome === "added")).toHaveLength(150);
      // Not part of the assertions (speed is for the benchmark): the figure for docs/benchmarks.md.
      console.log(
        `free-plan pacing: ${tookMs} ms for 150 rows; the limit makes ${thirdWindow - startedService} ms necessary`,
      );
    } finally {
      await proxy.close();
      await server.close();
    }
  }, 150_000);
});
