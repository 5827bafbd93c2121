import { appendFile, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StartServerOptions } from "../../src/server/options.js";
import { startServer } from "../../src/server/server.js";
import { ensureBuilt, runCli, spawnCli } from "./cli.js";
import {
  allPets,
  csvOf,
  finalOutcomes,
  namesIn,
  resultLines,
  tempDir,
  writeInput,
  type ResultRecord,
} from "./helpers.js";

const KEY = "e2e-key";
let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  await ensureBuilt();
  ({ dir, cleanup } = await tempDir());
});
afterAll(() => cleanup());

async function serve(options: StartServerOptions = {}) {
  const server = await startServer({ keys: [`${KEY}:enterprise`], quiet: true, ...options });
  const env = { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: KEY, PETSTORE_CONFIG_DIR: dir };
  return { server, env };
}

/** Resolves once `measure` has not changed for a while (well beyond the fake's latency). */
async function settled(measure: () => number): Promise<void> {
  let last = measure();
  for (let stable = 0; stable < 4;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = measure();
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
}

/** How the CLI names rows whose outcome is unknown: "row 4", "rows 2, 8". */
function rowsText(rows: number[]): string {
  return `${rows.length === 1 ? "row" : "rows"} ${[...rows].sort((a, b) => a - b).join(", ")}`;
}

function countByName(pets: Array<{ name: string }>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const pet of pets) counts.set(pet.name, (counts.get(pet.name) ?? 0) + 1);
  return counts;
}

describe("petstore add --from (end to end)", () => {
  it("adds the rows of CSV, NDJSON, a JSON array and stdin", async () => {
    const { server, env } = await serve();
    try {
      const csv = await writeInput(
        dir,
        "a.csv",
        'name,category_id,status\r\nRex,1,sold\r\n"Tom, jr",2,\r\n',
      );
      const ndjson = await writeInput(
        dir,
        "b.data",
        '{"name":"Kit","categoryId":3}\n{"name":"Max","categoryId":9223372036854775807}\n',
      );
      const json = await writeInput(
        dir,
        "c.json",
        '[\n {"name":"Ada","categoryId":4,"status":"pending"}\n]\n',
      );
      for (const [file, count] of [
        [csv, 2],
        [ndjson, 2],
        [json, 1],
      ] as const) {
        const run = await runCli(["add", "--from", file], env);
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).toContain(`${count} added`);
        expect(run.stdout).toBe("");
      }
      const piped = await runCli(
        ["add", "--from", "-", "--format", "csv"],
        env,
        "name,categoryId\nZed,5\n",
      );
      expect(piped.code, piped.stderr).toBe(0);
      expect(allPets(server.store).map((p) => [p.name, p.categoryId.toString(), p.status])).toEqual(
        [
          ["Rex", "1", "sold"],
          ["Tom, jr", "2", "available"],
          ["Kit", "3", "available"],
          ["Max", "9223372036854775807", "available"],
          ["Ada", "4", "pending"],
          ["Zed", "5", "available"],
        ],
      );
    } finally {
      await server.close();
    }
  });

  it("sends nothing when rows are invalid: every problem listed with row, line and field; exit 2", async () => {
    const { server, env } = await serve();
    try {
      const input = await writeInput(
        dir,
        "bad.ndjson",
        '{"name":"ok","categoryId":1}\n{"name":"","categoryId":1}\n{"name":"x","categoryId":"7"}\n{"name":"y","categoryId":2,"colour":"red"}\n',
      );
      const run = await runCli(["add", "--from", input], env);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("row 2 (line 2): name must be a non-blank string");
      expect(run.stderr).toContain("row 3 (line 3): categoryId must be an integer");
      expect(run.stderr).toContain("row 4 (line 4): colour unknown field");
      expect(run.stderr).toContain("3 of 4 rows are invalid; nothing was sent");
      expect(server.stats().responses).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("gets every row added exactly once through injected 503s and latency", async () => {
    const { server, env } = await serve({
      faults: { failRate: 0.15, failMode: "503", latency: { minMs: 5, maxMs: 40 }, seed: 7 },
    });
    try {
      const input = await writeInput(dir, "faults.csv", csvOf(20, "fault"));
      const run = await runCli(["add", "--from", input, "--concurrency", "4"], env);
      expect(run.code, run.stderr).toBe(0);
      expect(server.stats().byStatus[503]).toBeGreaterThan(0);
      const counts = countByName(allPets(server.store));
      expect(counts.size).toBe(20);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it("reports `unknown` for answers lost after the pet was created, and never re-sends them silently", async () => {
    const file = join(dir, "unknown-pets.json");
    const first = await serve({
      file,
      faults: { failRate: 0.3, failMode: "reset-after", seed: 11 },
    });
    const input = await writeInput(dir, "unknown.csv", csvOf(20, "u"));
    const results = join(dir, "unknown.results");
    let unknownRows: number[];
    try {
      const run = await runCli(
        ["add", "--from", input, "--results", results, "--concurrency", "2"],
        first.env,
      );
      expect(run.code).toBe(7);
      const outcomes = finalOutcomes(await resultLines(results));
      unknownRows = [...outcomes].filter(([, l]) => l.outcome === "unknown").map(([row]) => row);
      expect(unknownRows.length).toBe(first.server.stats().resets);
      expect(unknownRows.length).toBeGreaterThan(0);
      expect(run.stderr).toContain(rowsText(unknownRows));
      // reset-after really created them: the honest answer was "unknown", not "failed".
      const names = new Set(allPets(first.server.store).map((p) => p.name));
      for (const row of unknownRows) expect(names.has(`u-${row}`)).toBe(true);
      expect(names.size).toBe(20);

      const responsesBefore = first.server.stats().responses + first.server.stats().resets;
      const resumed = await runCli(["add", "--from", input, "--resume", results], first.env);
      expect(resumed.code).toBe(7);
      expect(resumed.stderr).toContain("not sent again (--retry-unknown sends them)");
      expect(first.server.stats().responses + first.server.stats().resets).toBe(responsesBefore);
    } finally {
      await first.server.close();
    }
    // Sent on purpose, they are added a second time: which is why it takes a flag.
    const second = await serve({ file });
    try {
      const retried = await runCli(
        ["add", "--from", input, "--resume", results, "--retry-unknown"],
        second.env,
      );
      expect(retried.code, retried.stderr).toBe(0);
      expect(second.server.stats().byStatus[201]).toBe(unknownRows.length);
      const counts = countByName(allPets(second.server.store));
      for (const row of unknownRows) expect(counts.get(`u-${row}`)).toBe(2);
    } finally {
      await second.server.close();
    }
  });

  it("says after unknown rows what is true, and following it adds every row exactly once", async () => {
    // More than the 100 pets `list` can show: the unknown rows' pets are not among them.
    const { server, env } = await serve({
      seed: 150,
      faults: { failRate: 0.3, failMode: "reset-after", seed: 5 },
    });
    try {
      const input = await writeInput(dir, "hint.csv", csvOf(20, "hint"));
      const results = join(dir, "hint.results");
      const run = await runCli(["add", "--from", input, "--results", results], env);
      expect(run.code).toBe(7);
      const unknown = [...finalOutcomes(await resultLines(results))].filter(
        ([, line]) => line.outcome === "unknown",
      );
      expect(unknown.length).toBeGreaterThan(0);
      expect(run.stderr).toContain(
        "`petstore list` shows only the first 100 pets by id, so it can tell only while the service holds no more",
      );
      expect(run.stderr).toContain(
        `append {"row":N,"outcome":"added","id":ID} to ${results}; then --resume ${results} holds the others back; with --retry-unknown it sends them again, adding a second pet for each one that was in fact added`,
      );
      const listed = await runCli(["list", "--limit", "100", "--output", "json"], env);
      expect(listed.code, listed.stderr).toBe(0);
      expect(namesIn(listed.stdout).some((name) => name.startsWith("hint-"))).toBe(false);

      // Following the hint: each pet found where the service keeps them is recorded as added.
      const byName = new Map(allPets(server.store).map((pet) => [pet.name, pet.id]));
      for (const [row] of unknown) {
        const id = byName.get(`hint-${row}`);
        expect(id).toBeDefined();
        await appendFile(results, `{"row":${row},"outcome":"added","id":${id}}\n`);
      }
      await server.setFaults({});
      const resumed = await runCli(["add", "--from", input, "--resume", results, "-q"], env);
      expect(resumed.code, resumed.stderr).toBe(0);
      const counts = countByName(allPets(server.store));
      for (let row = 1; row <= 20; row++) expect(counts.get(`hint-${row}`), `row ${row}`).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("stops gracefully on Ctrl-C: requests in flight are finished, so a resume has nothing unknown", async () => {
    const { server, env } = await serve({ faults: { latency: { minMs: 20, maxMs: 40 } } });
    try {
      const rows = 200;
      const input = await writeInput(dir, "interrupt.csv", csvOf(rows, "i"));
      const results = join(dir, "interrupt.results");
      const run = spawnCli(
        ["add", "--from", input, "--results", results, "--concurrency", "4"],
        env,
      );
      for (;;) {
        const text = await readFile(results, "utf8").catch(() => "");
        if (text.split('"outcome":"added"').length > 20) break;
        if (run.child.exitCode !== null) throw new Error(`the run ended first: ${run.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      run.child.kill("SIGINT");
      expect(await run.exited).toBe(130);
      expect(run.stderr()).toContain("stopping; finishing the requests in flight");
      const outcomes = finalOutcomes(await resultLines(results));
      expect([...outcomes.values()].every((line) => line.outcome === "added")).toBe(true);
      expect(allPets(server.store)).toHaveLength(outcomes.size);
      const resumed = await runCli(["add", "--from", input, "--resume", results], env);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(allPets(server.store)).toHaveLength(rows);
    } finally {
      await server.close();
    }
  });

  it("survives kill -9 half-way: the resume adds every row exactly once", async () => {
    const file = join(dir, "kill-pets.json");
    const { server, env } = await serve({ file, faults: { latency: { minMs: 10, maxMs: 30 } } });
    try {
      const rows = 300;
      const input = await writeInput(dir, "kill.csv", csvOf(rows, "k"));
      const results = join(dir, "kill.results");
      const run = spawnCli(
        ["add", "--from", input, "--results", results, "--concurrency", "4"],
        env,
      );
      // Kill it once about a third of the rows are recorded as added.
      for (;;) {
        const size = await stat(results).then(
          (s) => s.size,
          () => 0,
        );
        if (
          size > 0 &&
          (await readFile(results, "utf8")).split('"outcome":"added"').length > rows / 3
        )
          break;
        if (run.child.exitCode !== null) throw new Error(`the run ended first: ${run.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      run.child.kill("SIGKILL");
      await run.exited;
      // Requests that reached the fake before the kill are still being served: let them finish.
      await settled(() => server.store.size);

      const killed = finalOutcomes(await resultLines(results));
      const addedBefore = [...killed.values()].filter((l) => l.outcome === "added").length;
      const inFlight = [...killed].filter(([, l]) => l.outcome === "sending").map(([row]) => row);
      expect(addedBefore).toBeGreaterThanOrEqual(rows / 3);
      expect(addedBefore).toBeLessThan(rows);
      expect(inFlight.length).toBeLessThanOrEqual(4);

      // The resume sends every row never sent, and holds back the ones in flight at the kill.
      const createdBefore = server.store.size;
      const resumed = await runCli(["add", "--from", input, "--resume", results], env);
      const pending = rows - addedBefore - inFlight.length;
      expect(server.store.size - createdBefore).toBe(pending);
      if (inFlight.length > 0) {
        expect(resumed.code).toBe(7);
        expect(resumed.stderr).toContain(rowsText(inFlight));
      } else {
        expect(resumed.code, resumed.stderr).toBe(0);
      }

      // What a person does with them: look each one up; settle those found, send the others on purpose.
      const byName = new Map(allPets(server.store).map((p) => [p.name, p]));
      for (const row of inFlight) {
        const pet = byName.get(`k-${row}`);
        if (pet !== undefined) {
          await appendFile(results, `{"row":${row},"outcome":"added","id":${pet.id}}\n`);
        }
      }
      const retried = await runCli(
        ["add", "--from", input, "--resume", results, "--retry-unknown"],
        env,
      );
      expect(retried.code, retried.stderr).toBe(0);

      const counts = countByName(allPets(server.store));
      expect(counts.size).toBe(rows);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      const final = finalOutcomes(await resultLines(results));
      expect([...final.values()].every((l: ResultRecord) => l.outcome === "added")).toBe(true);
      expect(final.size).toBe(rows);
    } finally {
      await server.close();
    }
    // The server's own file agrees.
    const stored = JSON.parse(await readFile(file, "utf8")) as Array<{ name: string }>;
    expect(new Set(stored.map((p) => p.name)).size).toBe(300);
    expect(stored).toHaveLength(300);
  });
});
