/** Shared by the bulk tests: input files, a test IO, a real in-process server, results lines. */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { DEFAULT_RETRY_POLICY } from "../../src/client/retry.js";
import type { BulkDeps, BulkOptions } from "../../src/bulk/engine.js";
import { createTestIO, type TestIO } from "../test-io.js";
import { parseJson } from "../../src/schema/json.js";

export const KEY = "bulk-test-key";

export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "petstore-bulk-test-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A temporary directory for a whole test file: made before its tests, removed after them. */
export function tempDirPerFile(): { readonly dir: string } {
  const temp = { dir: "" };
  let cleanup: () => Promise<void> = async () => {};
  beforeAll(async () => {
    ({ dir: temp.dir, cleanup } = await tempDir());
  });
  afterAll(() => cleanup());
  return temp;
}

export async function writeInput(dir: string, name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

export function csvOf(count: number, prefix = "pet", start = 1): string {
  let text = "name,categoryId,status\n";
  for (let i = start; i < start + count; i++) text += `${prefix}-${i},${i % 7},available\n`;
  return text;
}

export function options(from: string, more: Partial<BulkOptions> = {}): BulkOptions {
  return {
    from,
    skipInvalid: false,
    retryUnknown: false,
    concurrency: 4,
    timeoutMs: 5_000,
    retry: { ...DEFAULT_RETRY_POLICY, backoffBase: 10, backoffLimit: 50 },
    verbose: false,
    ...more,
  };
}

export function deps(baseUrl: string, more: Partial<BulkDeps> = {}): BulkDeps & { io: TestIO } {
  return {
    io: createTestIO(),
    settings: { baseUrl, apiKey: KEY, allowInsecure: false },
    userAgent: "petstore-test",
    stdin: async function* () {},
    ...more,
  } as BulkDeps & { io: TestIO };
}

export type ResultRecord = Record<string, unknown> & { row?: bigint; outcome?: string };

/**
 * The lines of a results file. A run still going, or killed, has room claimed
 * after its last line (spaces, no line break: see src/bulk/results.ts).
 */
export async function resultLines(path: string): Promise<ResultRecord[]> {
  const text = await readFile(path, "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => parseJson(line) as ResultRecord);
}

/** The last line of each row, by row number. */
export function finalOutcomes(lines: ResultRecord[]): Map<number, ResultRecord> {
  const byRow = new Map<number, ResultRecord>();
  for (const line of lines) if (line.row !== undefined) byRow.set(Number(line.row), line);
  return new Map([...byRow].sort(([a], [b]) => a - b));
}

/** Names of the pets in a store's list JSON. */
export function namesIn(listJson: string): string[] {
  return (parseJson(listJson) as Array<{ name: string }>).map((pet) => pet.name);
}

/** Every pet of a store whose ids run from 1 (a store started without demo pets). */
export function allPets(store: {
  size: number;
  getJson(id: bigint): string | undefined;
}): Array<{ id: bigint; name: string; categoryId: bigint; status?: string }> {
  const pets = [];
  for (let id = 1n; id <= BigInt(store.size); id++) {
    const json = store.getJson(id);
    if (json !== undefined)
      pets.push(parseJson(json) as { id: bigint; name: string; categoryId: bigint });
  }
  return pets;
}
