/**
 * A full disk under the results file, for real: `add --from` of 10,000 rows
 * writes its results to a 256 KiB tmpfs mounted inside the test's own directory.
 * The run must stop before the disk is full with exit 9 and a clear message (no
 * Node stack), every row it sent recorded `added` (none left unknown because its
 * line could not be written), and a resume once there is room must add every
 * row exactly once.
 */
import { execFileSync } from "node:child_process";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { ensureBuilt, runCli } from "./cli.js";
import { allPets, csvOf, finalOutcomes, resultLines, tempDir, writeInput } from "./helpers.js";

const KEY = "full-disk-bulk-key";
const ROWS = 10_000;

let dir: string;
let cleanup: () => Promise<void>;
let disk: string;
let mounted = false;
let server: RunningServer;

beforeAll(async () => {
  await ensureBuilt();
  ({ dir, cleanup } = await tempDir());
  disk = join(dir, "disk");
  await mkdir(disk);
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k,mode=0755", "tmpfs", disk]);
  mounted = true;
  server = await startServer({ keys: [`${KEY}:enterprise`], quiet: true });
});
afterAll(async () => {
  await server?.close();
  if (mounted) execFileSync("umount", [disk]);
  await cleanup();
});

describe("a results file on a disk that fills up", () => {
  it("stops the run with exit 9 before an outcome is lost, and a resume adds every row once", async () => {
    const env = { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: KEY, PETSTORE_CONFIG_DIR: dir };
    const input = await writeInput(dir, "big.csv", csvOf(ROWS, "full"));
    const results = join(disk, "big.results.ndjson");

    const run = await runCli(["add", "--from", input, "--results", results], env);
    expect(run.code, run.stderr).toBe(9);
    expect(run.stderr).toContain(`the results file ${results} cannot be written:`);
    expect(run.stderr).toContain("the disk is full");
    expect(run.stderr).toContain(`run the same command with --resume ${results}`);
    expect(run.stderr).not.toMatch(/^\s+at /m);
    const added = allPets(server.store).length;
    expect(added).toBeGreaterThan(0);
    expect(added).toBeLessThan(ROWS);
    const outcomes = finalOutcomes(await resultLines(results));
    expect(new Set([...outcomes.values()].map((line) => line.outcome))).toEqual(new Set(["added"]));
    expect(outcomes.size).toBe(added);
    // Closed cleanly: no room kept at the end of the file.
    expect((await readFile(results, "utf8")).endsWith("}\n")).toBe(true);

    execFileSync("mount", ["-o", "remount,size=16m", disk]);
    const resumed = await runCli(["add", "--from", input, "--resume", results], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `${(ROWS - added).toLocaleString("en-US")} added, ${added.toLocaleString("en-US")} added before`,
    );
    const names = allPets(server.store).map((pet) => pet.name);
    expect(names).toHaveLength(ROWS);
    expect(new Set(names).size).toBe(ROWS);
  });
});
