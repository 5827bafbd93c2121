import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runBulkAdd } from "../../src/bulk/engine.js";
import { EXIT, PetstoreError, UsageError } from "../../src/errors.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import {
  KEY,
  allPets,
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
let server: RunningServer;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterAll(() => cleanup());
beforeEach(async () => {
  server = await startServer({ keys: [`${KEY}:enterprise`], quiet: true });
});
afterEach(() => server.close());

const posts = () => server.stats().responses;

describe("runBulkAdd against a real server", () => {
  it("adds every row of a CSV file and records each new id", async () => {
    const input = await writeInput(dir, "ok.csv", csvOf(25));
    const results = join(dir, "ok.results");
    const report = await runBulkAdd(options(input, { results }), deps(server.url));
    expect(report).toMatchObject({
      rows: 25,
      added: 25,
      invalid: 0,
      failed: 0,
      unknown: 0,
      exitCode: 0,
    });
    const pets = allPets(server.store);
    expect(pets.map((p) => p.name).sort()).toEqual(
      Array.from({ length: 25 }, (_, i) => `pet-${i + 1}`).sort(),
    );
    const outcomes = finalOutcomes(await resultLines(results));
    expect(outcomes.size).toBe(25);
    for (const [row, line] of outcomes) {
      expect(line.outcome).toBe("added");
      const pet = pets.find((p) => p.id === line.id);
      expect(pet?.name).toBe(`pet-${row}`);
    }
  });

  it("reads NDJSON and a JSON array alike, int64 category ids exact", async () => {
    const big = "9223372036854775807";
    const ndjson = await writeInput(
      dir,
      "pets.ndjson",
      `{"name":"a","categoryId":${big}}\n\n{"name":"b","categoryId":2,"status":"sold"}\n`,
    );
    const json = await writeInput(
      dir,
      "pets.json",
      `[{"name":"c","categoryId":3},\n {"name":"d","categoryId":${big}}]`,
    );
    expect((await runBulkAdd(options(ndjson), deps(server.url))).added).toBe(2);
    expect((await runBulkAdd(options(json), deps(server.url))).added).toBe(2);
    const pets = allPets(server.store);
    expect(pets.map((p) => [p.name, p.categoryId.toString()])).toEqual([
      ["a", big],
      ["b", "2"],
      ["c", "3"],
      ["d", big],
    ]);
  });

  it("sends nothing when a row is invalid, and lists every problem with row, line and field", async () => {
    const input = await writeInput(
      dir,
      "bad.csv",
      "name,categoryId,status\nok,1,available\n,2,sold\nx,abc,lost\ny,3,,extra\n",
    );
    const results = join(dir, "bad.results");
    const io = deps(server.url);
    const error = await runBulkAdd(options(input, { results }), io).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain("3 of 4 rows are invalid; nothing was sent");
    expect(posts()).toBe(0);
    const err = io.io.err();
    expect(err).toContain("row 2 (line 3): name is required");
    expect(err).toContain("row 3 (line 4): categoryId must be an integer");
    expect(err).toContain(
      'row 3 (line 4): status must be one of available, pending, sold; got "lost"',
    );
    expect(err).toContain("row 4 (line 5): has 4 fields; the header has 3");
    const outcomes = finalOutcomes(await resultLines(results));
    expect([...outcomes.keys()]).toEqual([2, 3, 4]);
    expect(outcomes.get(3)?.problems).toEqual([
      { field: "categoryId", message: expect.stringContaining("must be an integer") },
      { field: "status", message: expect.stringContaining('got "lost"') },
    ]);
  });

  it("lists every problem on stderr, however many, without --results too", async () => {
    const bad = Array.from({ length: 45 }, (_, i) => `{"name":"pet ${i}","categoryId":"c${i}"}`);
    const input = await writeInput(
      dir,
      "many-bad.ndjson",
      `{"name":"ok","categoryId":1}\n${bad.join("\n")}\n`,
    );
    const io = deps(server.url);
    const error = await runBulkAdd(options(input), io).catch((e: unknown) => e);
    expect((error as UsageError).message).toContain("45 of 46 rows are invalid; nothing was sent");
    expect(posts()).toBe(0);
    const listed = io.io
      .err()
      .split("\n")
      .filter((line) => /^ {2}row \d+ \(line \d+\): /.test(line));
    expect(listed).toHaveLength(45);
    expect(listed[0]).toMatch(/^ {2}row 2 \(line 2\): categoryId must be an integer .*; got "c0"$/);
    expect(listed[44]).toMatch(/^ {2}row 46 \(line 46\): categoryId /);
  });

  it("with --skip-invalid sends the valid rows, records the rest, and exits 2", async () => {
    const input = await writeInput(
      dir,
      "mixed.ndjson",
      '{"name":"a","categoryId":1}\n{"name":"b"}\n{oops\n{"name":"c","categoryId":3}\n',
    );
    const results = join(dir, "mixed.results");
    const report = await runBulkAdd(
      options(input, { results, skipInvalid: true }),
      deps(server.url),
    );
    expect(report).toMatchObject({ rows: 4, added: 2, invalid: 2, exitCode: EXIT.USAGE });
    expect(allPets(server.store).map((p) => p.name)).toEqual(["a", "c"]);
    const outcomes = finalOutcomes(await resultLines(results));
    expect([...outcomes].map(([row, line]) => [row, line.outcome])).toEqual([
      [1, "added"],
      [2, "invalid"],
      [3, "invalid"],
      [4, "added"],
    ]);
  });

  it("stops at a structural problem, naming the line, and sends nothing", async () => {
    const input = await writeInput(
      dir,
      "broken.json",
      '[{"name":"a","categoryId":1}]\n {"name":"b","categoryId":2}',
    );
    const error = await runBulkAdd(options(input, { skipInvalid: true }), deps(server.url)).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toMatch(/line 2, column 2: nothing may follow the array/);
    expect(posts()).toBe(0);
  });

  it("refuses to write over an existing results file", async () => {
    const input = await writeInput(dir, "one.csv", csvOf(1));
    const results = await writeInput(dir, "exists.results", '{"row":1}\n');
    const error = await runBulkAdd(options(input, { results }), deps(server.url)).catch(
      (e: unknown) => e,
    );
    expect((error as UsageError).message).toContain("already exists");
    expect((error as UsageError).hint).toContain(`--resume ${results}`);
    expect(posts()).toBe(0);
  });

  it("reads stdin (copied to a temporary file so it can be read twice)", async () => {
    const text = csvOf(3, "stdin");
    const report = await runBulkAdd(
      options("-"),
      deps(server.url, {
        stdin: async function* () {
          yield text.slice(0, 10);
          yield text.slice(10);
        },
      }),
    );
    expect(report.added).toBe(3);
    expect(allPets(server.store).map((p) => p.name)).toEqual(["stdin-1", "stdin-2", "stdin-3"]);
  });

  it("fails before reading anything without an API key", async () => {
    const input = await writeInput(dir, "nokey.csv", csvOf(1));
    const error = await runBulkAdd(
      options(input),
      deps(server.url, { settings: { baseUrl: server.url, allowInsecure: false } }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PetstoreError);
    expect((error as PetstoreError).exitCode).toBe(EXIT.AUTH);
  });
});

describe("--resume", () => {
  it("sends only the rows not added yet, and never a row added before", async () => {
    const input = await writeInput(dir, "resume.csv", csvOf(10, "r"));
    const results = join(dir, "resume.results");
    await runBulkAdd(options(input, { results }), deps(server.url));
    // Make the first run look cut short after row 6: drop the outcomes of rows 7 to 10.
    const lines = await resultLines(results);
    const kept = lines.filter((l) => l.row === undefined || Number(l.row) <= 6);
    const { writeFile } = await import("node:fs/promises");
    const { stringifyJson } = await import("../../src/schema/json.js");
    await writeFile(results, kept.map((l) => stringifyJson(l)).join("\n") + "\n");
    const before = server.store.size;
    const report = await runBulkAdd(options(input, { resume: results }), deps(server.url));
    expect(report).toMatchObject({ added: 4, previouslyAdded: 6, exitCode: 0 });
    expect(server.store.size - before).toBe(4);
    const outcomes = finalOutcomes(await resultLines(results));
    expect([...outcomes.values()].every((l) => l.outcome === "added")).toBe(true);
    expect(outcomes.size).toBe(10);
  });

  it("holds back rows left `sending` or `unknown`, lists them, and sends them only with --retry-unknown", async () => {
    const input = await writeInput(dir, "unknown.csv", csvOf(4, "u"));
    const results = join(dir, "unknown.results");
    await runBulkAdd(options(input, { results }), deps(server.url));
    const { stringifyJson } = await import("../../src/schema/json.js");
    const lines = await resultLines(results);
    const rewritten = lines.map((l) => {
      if (l.row === 2n) return { ...l, outcome: "sending", id: undefined };
      if (l.row === 3n)
        return { ...l, outcome: "unknown", id: undefined, error: { message: "reset" } };
      return l;
    });
    const { writeFile } = await import("node:fs/promises");
    await writeFile(results, rewritten.map((l) => stringifyJson(l)).join("\n") + "\n");
    const before = posts();
    const held = await runBulkAdd(options(input, { resume: results }), deps(server.url));
    expect(held).toMatchObject({
      added: 0,
      previouslyAdded: 2,
      unknown: 2,
      unknownRows: [2, 3],
      exitCode: EXIT.OUTCOME_UNKNOWN,
    });
    expect(posts()).toBe(before);
    // Held back rows keep their last line: `sending` reads as unknown in every later run.
    expect(finalOutcomes(await resultLines(results)).get(2)?.outcome).toBe("sending");
    const retried = await runBulkAdd(
      options(input, { resume: results, retryUnknown: true }),
      deps(server.url),
    );
    expect(retried).toMatchObject({ added: 2, previouslyAdded: 2, unknown: 0, exitCode: 0 });
    expect(posts()).toBe(before + 2);
  });

  it("refuses an input whose rows differ from the ones recorded as sent", async () => {
    const input = await writeInput(dir, "changed.csv", csvOf(3, "c"));
    const results = join(dir, "changed.results");
    await runBulkAdd(options(input, { results }), deps(server.url));
    await writeInput(dir, "changed.csv", csvOf(3, "c", 2));
    const before = posts();
    const error = await runBulkAdd(options(input, { resume: results }), deps(server.url)).catch(
      (e: unknown) => e,
    );
    expect((error as UsageError).message).toContain(
      "row 1 (line 2) is not the row that was added before",
    );
    expect(posts()).toBe(before);
  });

  it("re-validates rows recorded invalid: a fixed row is sent", async () => {
    const input = await writeInput(dir, "fix.csv", "name,categoryId\na,1\nb,x\n");
    const results = join(dir, "fix.results");
    await runBulkAdd(options(input, { results }), deps(server.url)).catch(() => undefined);
    await writeInput(dir, "fix.csv", "name,categoryId\na,1\nb,2\n");
    const report = await runBulkAdd(options(input, { resume: results }), deps(server.url));
    expect(report).toMatchObject({ added: 2, exitCode: 0 });
  });
});
