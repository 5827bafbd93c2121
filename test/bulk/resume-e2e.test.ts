/**
 * `petstore add --from … --resume` end to end, on the files it must never damage:
 * a results file larger than one read chunk, and files that are not results files.
 */
import { existsSync } from "node:fs";
import { readFile, stat, utimes } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_CHUNK_BYTES } from "../../src/bulk/prior-runs.js";
import { startServer } from "../../src/server/server.js";
import { ensureBuilt, runCli } from "./cli.js";
import { allPets, csvOf, finalOutcomes, resultLines, tempDir, writeInput } from "./helpers.js";

const KEY = "resume-key";
let dir: string;
let cleanup: () => Promise<void>;
let server: Awaited<ReturnType<typeof startServer>>;
let env: Record<string, string>;
beforeAll(async () => {
  await ensureBuilt();
  ({ dir, cleanup } = await tempDir());
  server = await startServer({ keys: [`${KEY}:enterprise`], quiet: true });
  env = { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: KEY, PETSTORE_CONFIG_DIR: dir };
});
afterAll(async () => {
  await server.close();
  await cleanup();
});

describe("--resume of a results file larger than a read chunk", () => {
  it("keeps every line of a 2,000-row run, appends the resumed rows, and the next --resume accepts it", async () => {
    const input = await writeInput(dir, "big.csv", csvOf(2_000, "big"));
    const results = join(dir, "big.results");
    const first = await runCli(["add", "--from", input, "--results", results], env);
    expect(first.code, first.stderr).toBe(0);
    const written = await readFile(results);
    expect(written.length).toBeGreaterThan(2 * READ_CHUNK_BYTES);

    // The same rows and 10 more at the end: the resume sends only those 10.
    await writeInput(dir, "big.csv", csvOf(2_010, "big"));
    const resumed = await runCli(["add", "--from", input, "--resume", results], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain("10 added");
    const after = await readFile(results);
    expect(after.subarray(0, written.length).equals(written)).toBe(true);
    const outcomes = finalOutcomes(await resultLines(results));
    expect(outcomes.size).toBe(2_010);
    expect([...outcomes.values()].every((line) => line.outcome === "added")).toBe(true);

    const again = await runCli(["add", "--from", input, "--resume", results], env);
    expect(again.code, again.stderr).toBe(0);
    expect((await readFile(results)).subarray(0, after.length).equals(after)).toBe(true);
    const names = allPets(server.store).map((pet) => pet.name);
    expect(names.filter((name) => name.startsWith("big-"))).toHaveLength(2_010);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe("--resume of a file that is not a results file", () => {
  it.each([
    ["the input CSV itself", "in.csv", csvOf(3, "self")],
    ["notes", "notes.txt", "Call the shelter on Monday.\nAsk about the cats.\n"],
    ["a file of other text", "blank.txt", "\n \n"],
  ])(
    "refuses %s with exit 2, sends nothing, and leaves it byte for byte",
    async (_, name, text) => {
      const path = await writeInput(dir, name, text);
      const input = name.endsWith(".csv") ? path : await writeInput(dir, "rows.csv", csvOf(3, "n"));
      const old = new Date(Date.UTC(2030, 0, 1));
      await utimes(path, old, old);
      const before = await stat(path);
      const requests = server.stats().responses;
      const run = await runCli(["add", "--from", input, "--resume", path], env);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`--resume ${path} is not a petstore results file`);
      expect(run.stderr).toContain("--results");
      expect(await readFile(path, "utf8")).toBe(text);
      const after = await stat(path);
      expect([after.size, after.mtimeMs, after.ino]).toEqual([
        before.size,
        before.mtimeMs,
        before.ino,
      ]);
      expect(existsSync(`${path}.lock`)).toBe(false);
      expect(server.stats().responses).toBe(requests);
    },
  );

  it("starts afresh on a 0-byte file, which becomes the results file", async () => {
    const path = await writeInput(dir, "empty.results", "");
    const input = await writeInput(dir, "fresh.csv", csvOf(3, "fresh"));
    const run = await runCli(["add", "--from", input, "--resume", path], env);
    expect(run.code, run.stderr).toBe(0);
    const lines = await resultLines(path);
    expect(lines[0]).toHaveProperty("run");
    expect(finalOutcomes(lines).size).toBe(3);
  });
});
