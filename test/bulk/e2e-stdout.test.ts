/**
 * `petstore add --from` with `-q` and `--json`: each row's outcome on stdout, as
 * it is known, from the built CLI against the fake; and the results file a long
 * run writes next to its input when no --results is given.
 */
import { lstat, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StartServerOptions } from "../../src/server/options.js";
import { startServer } from "../../src/server/server.js";
import { createMemoryStore } from "../../src/server/store/memory.js";
import { parseJson } from "../../src/schema/json.js";
import { ensureBuilt, runCli } from "./cli.js";
import { csvOf, finalOutcomes, resultLines, tempDir, writeInput } from "./helpers.js";

const KEY = "e2e-stdout-key";
let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  await ensureBuilt();
  ({ dir, cleanup } = await tempDir());
});
afterAll(() => cleanup());

/** Ids above 2^53 from the first pet on: a lossy id would show. */
const FIRST_ID = 9_223_372_036_854_000_000n;

async function serve(options: StartServerOptions = {}) {
  const store =
    options.file === undefined
      ? createMemoryStore([{ id: FIRST_ID - 1n, name: "seed", categoryId: 0n, status: "sold" }])
      : undefined;
  const server = await startServer({
    keys: [`${KEY}:enterprise`],
    quiet: true,
    ...(store !== undefined ? { store } : {}),
    ...options,
  });
  const env = { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: KEY, PETSTORE_CONFIG_DIR: dir };
  return { server, env };
}

/** Pet names by id, as the fake holds them. */
function namesById(server: { store: { listJson(o: { limit: number }): string } }) {
  const pets = parseJson(server.store.listJson({ limit: 1_000_000 })) as Array<{
    id: bigint;
    name: string;
  }>;
  return new Map(pets.map((pet) => [pet.id, pet.name]));
}

function lines(text: string): string[] {
  expect(text === "" || text.endsWith("\n")).toBe(true);
  return text === "" ? [] : text.slice(0, -1).split("\n");
}

type Outcome = Record<string, unknown> & { row: bigint; outcome: string };

describe("add --from -q", () => {
  it("prints exactly the ids of 1,000 rows in input order, though answers arrive out of order", async () => {
    const { server, env } = await serve({ faults: { latency: { minMs: 0, maxMs: 20 }, seed: 5 } });
    try {
      const rows = 1000;
      const input = await writeInput(dir, "thousand.csv", csvOf(rows, "q"));
      const run = await runCli(["add", "--from", input, "-q", "--concurrency", "16"], env);
      expect(run.code, run.stderr).toBe(0);
      const ids = lines(run.stdout);
      expect(ids).toHaveLength(rows);
      expect(ids.every((id) => /^[0-9]+$/.test(id))).toBe(true);
      const names = namesById(server);
      expect(ids.map((id) => names.get(BigInt(id)))).toEqual(
        Array.from({ length: rows }, (_, i) => `q-${i + 1}`),
      );
      // The fake numbers pets as it creates them: ids out of order mean answers were.
      const numeric = ids.map(BigInt);
      expect(numeric).not.toEqual([...numeric].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(numeric.every((id) => id >= FIRST_ID)).toBe(true);
      // The same run recorded its rows next to its input (more than 100 rows, no --results).
      const recorded = finalOutcomes(await resultLines(`${input}.results.ndjson`));
      expect([...recorded.values()].map((line) => String(line.id))).toEqual(ids);
      expect(run.stderr).toContain(`${input}.results.ndjson`);
    } finally {
      await server.close();
    }
  });

  it("--output ndjson is --json; other output formats are refused before anything is read", async () => {
    const { server, env } = await serve();
    try {
      const input = await writeInput(dir, "formats.csv", csvOf(3, "f"));
      const ndjson = await runCli(["add", "--from", input, "--output", "ndjson"], env);
      expect(ndjson.code, ndjson.stderr).toBe(0);
      expect(lines(ndjson.stdout).map((line) => (parseJson(line) as Outcome).outcome)).toEqual([
        "added",
        "added",
        "added",
      ]);
      for (const format of ["json", "table", "tsv", "csv"]) {
        const refused = await runCli(["add", "--from", input, "--output", format], env);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain(`--output ${format}`);
        expect(refused.stderr).toContain("--json");
      }
      const both = await runCli(["add", "--from", input, "--json", "-q"], env);
      expect(both.code).toBe(2);
      expect(server.store.size).toBe(1 + 3);
    } finally {
      await server.close();
    }
  });
});

describe("add --from --json", () => {
  it("gives one line per row: added with its exact id, invalid, unknown; stdout holds nothing else", async () => {
    const { server, env } = await serve({
      faults: { failRate: 0.25, failMode: "reset-after", latency: { minMs: 0, maxMs: 5 }, seed: 3 },
    });
    try {
      let text = "";
      const invalidRows = new Set([4, 17, 30]);
      for (let row = 1; row <= 40; row++) {
        text += invalidRows.has(row)
          ? `{"name":"bad-${row}","categoryId":"x"}\n`
          : `{"name":"j-${row}","categoryId":${row}}\n`;
      }
      const input = await writeInput(dir, "mixed.ndjson", text);
      const results = join(dir, "mixed.results");
      const run = await runCli(
        ["add", "--from", input, "--json", "--skip-invalid", "--results", results],
        env,
      );
      expect(run.code).toBe(7);
      const outcomes = lines(run.stdout).map((line) => parseJson(line) as Outcome);
      expect(outcomes.map((o) => Number(o.row)).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 40 }, (_, i) => i + 1),
      );
      const recorded = finalOutcomes(await resultLines(results));
      const names = namesById(server);
      const kinds = new Set<string>();
      for (const o of outcomes) {
        const row = Number(o.row);
        kinds.add(o.outcome);
        expect(o.outcome).toBe(recorded.get(row)!.outcome);
        expect(o.line).toBe(BigInt(row));
        if (o.outcome === "added") {
          expect(Object.keys(o)).toEqual(["row", "line", "outcome", "id"]);
          expect(names.get(o.id as bigint)).toBe(`j-${row}`);
          expect(o.id).toBe(recorded.get(row)!.id);
        } else if (o.outcome === "invalid") {
          expect(invalidRows.has(row)).toBe(true);
          const problem =
            'must be an integer from -9223372036854775808 to 9223372036854775807 (a JSON number, not a string); got "x"';
          expect(o).toEqual({
            row: BigInt(row),
            line: BigInt(row),
            outcome: "invalid",
            error: {
              message: `categoryId ${problem}`,
              problems: [{ field: "categoryId", message: problem }],
            },
          });
        } else {
          expect(o.outcome).toBe("unknown");
          expect(Object.keys(o)).toEqual(["row", "line", "outcome", "error"]);
          expect(typeof (o.error as { message: unknown }).message).toBe("string");
          // reset-after created the pet: "unknown" is the honest answer.
          expect([...names.values()]).toContain(`j-${row}`);
        }
      }
      expect([...kinds].sort()).toEqual(["added", "invalid", "unknown"]);
      // Ids above 2^53 arrive exact, as the service's bytes had them.
      expect(run.stdout).toMatch(/"id":92233720368540000\d\d/);
    } finally {
      await server.close();
    }
  });

  it("gives a failed row its status, and no line for the rows a stopped run never sent", async () => {
    const { server, env } = await serve({ faults: { failRate: 1, failMode: "503" } });
    try {
      const input = await writeInput(dir, "refused.csv", csvOf(5, "r"));
      const run = await runCli(
        ["add", "--from", input, "--json", "--no-retry", "--concurrency", "1"],
        env,
      );
      expect(run.code).toBe(6);
      const outcomes = lines(run.stdout).map((line) => parseJson(line) as Outcome);
      expect(outcomes).toHaveLength(1);
      expect(outcomes[0]).toMatchObject({
        row: 1n,
        line: 2n,
        outcome: "failed",
        error: { status: 503n },
      });
      expect(run.stderr).toContain("4 rows not sent");
    } finally {
      await server.close();
    }
  });
});

describe("stdout and stderr", () => {
  it("keep apart: outcomes on stdout, progress lines and the summary on stderr", async () => {
    // Slow enough (about 6 s) for the plain progress line a pipe gets every 5 s.
    const { server, env } = await serve({ faults: { latency: { minMs: 150, maxMs: 150 } } });
    try {
      const input = await writeInput(dir, "slow.csv", csvOf(40, "p"));
      const run = await runCli(["add", "--from", input, "--json", "--concurrency", "1"], env);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/petstore add: \d+ of 40 done, \d+ left/);
      expect(run.stderr).toContain("petstore add: 40 added");
      const outcomes = lines(run.stdout).map((line) => parseJson(line) as Outcome);
      expect(outcomes.map((o) => [Number(o.row), o.outcome])).toEqual(
        Array.from({ length: 40 }, (_, i) => [i + 1, "added"]),
      );
    } finally {
      await server.close();
    }
  });
});

describe("the results file of a long run without --results", () => {
  it("is written for 101 rows, a second plain run is refused, and --resume -q gives every id", async () => {
    const file = join(dir, "resume-pets.json");
    const input = await writeInput(dir, "long.csv", csvOf(101, "l"));
    const auto = `${input}.results.ndjson`;
    let firstIds: string[];
    // With --no-retry, the first injected 503 stops the run part-way.
    const first = await serve({ file, faults: { failRate: 0.05, failMode: "503", seed: 4 } });
    try {
      const run = await runCli(
        ["add", "--from", input, "-q", "--no-retry", "--concurrency", "1"],
        first.env,
      );
      expect(run.code).toBe(6);
      expect(run.stderr).toContain(`--resume ${auto}`);
      firstIds = lines(run.stdout);
      expect(firstIds.length).toBeGreaterThan(0);
      expect(firstIds.length).toBeLessThan(100);
    } finally {
      await first.server.close();
    }
    const second = await serve({ file });
    try {
      const before = await readFile(auto, "utf8");
      const again = await runCli(["add", "--from", input, "-q"], second.env);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain(`${auto} records an earlier run of ${input}`);
      expect(again.stderr).toContain(`--resume ${auto}`);
      expect(again.stdout).toBe("");
      expect(second.server.stats().responses).toBe(0);
      expect(await readFile(auto, "utf8")).toBe(before);

      const resumed = await runCli(["add", "--from", input, "--resume", auto, "-q"], second.env);
      expect(resumed.code, resumed.stderr).toBe(0);
      const ids = lines(resumed.stdout);
      expect(ids).toHaveLength(101);
      expect(ids.slice(0, firstIds.length)).toEqual(firstIds);
      const names = namesById(second.server);
      expect(ids.map((id) => names.get(BigInt(id)))).toEqual(
        Array.from({ length: 101 }, (_, i) => `l-${i + 1}`),
      );
    } finally {
      await second.server.close();
    }
  });

  it("is not written for 100 rows, nor for stdin, which says it cannot be resumed", async () => {
    const { server, env } = await serve();
    try {
      const input = await writeInput(dir, "hundred.csv", csvOf(100, "h"));
      const run = await runCli(["add", "--from", input], env);
      expect(run.code, run.stderr).toBe(0);
      await expect(stat(`${input}.results.ndjson`)).rejects.toThrow("ENOENT");
      expect(run.stderr).not.toContain("resume");

      const piped = await runCli(["add", "--from", "-", "-q"], env, csvOf(101, "s"));
      expect(piped.code, piped.stderr).toBe(0);
      expect(lines(piped.stdout)).toHaveLength(101);
      expect(piped.stderr).toContain("cannot be resumed");
      expect(piped.stderr).toContain("--results <file>");
    } finally {
      await server.close();
    }
  });

  it("never follows a symlink or overwrites a file in its place: it sends without one and says so", async () => {
    const { server, env } = await serve();
    try {
      const input = await writeInput(dir, "linked.csv", csvOf(150, "k"));
      const target = join(dir, "elsewhere.txt");
      await symlink(target, `${input}.results.ndjson`);
      const linked = await runCli(["add", "--from", input], env);
      expect(linked.code, linked.stderr).toBe(0);
      expect(linked.stderr).toContain("symbolic link");
      expect(linked.stderr).toContain("cannot be resumed");
      await expect(lstat(target)).rejects.toThrow("ENOENT");
      expect(await readlink(`${input}.results.ndjson`)).toBe(target);

      const other = await writeInput(dir, "noted.csv", csvOf(150, "n"));
      await writeFile(`${other}.results.ndjson`, "my own notes\n");
      const noted = await runCli(["add", "--from", other], env);
      expect(noted.code, noted.stderr).toBe(0);
      expect(noted.stderr).toContain("is not the results file of");
      expect(noted.stderr).toContain("cannot be resumed");
      expect(await readFile(`${other}.results.ndjson`, "utf8")).toBe("my own notes\n");
      expect(server.store.size).toBe(1 + 300);
    } finally {
      await server.close();
    }
  });
});
