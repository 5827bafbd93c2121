/**
 * kill -9 while pets are created and the store is reset: a restart serves the
 * opening pets with every create acknowledged after the last finished reset, and
 * none acknowledged before it started, in a valid file. A reset under way at the
 * kill may have taken effect or not (its rename is the switch): either side, whole.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { bundleScript } from "../../bundle-script.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseJson } from "../../../src/schema/json.js";
import type { Pet } from "../../../src/schema/pet.js";
import { openFileStore } from "../../../src/server/store/file-store.js";
import { demoPets } from "../../../src/server/demo-pets.js";

let dir: string;
let writer: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "petstore-reset-crash-"));
  writer = await bundleScript(new URL("fixtures/reset-writer.ts", import.meta.url), dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * Runs the writer (resetting every 15 ms, at most `maxResets` times) until it
 * printed `resets` finished resets and `delayMs` passed, then kill -9; the lines
 * it printed.
 */
async function runAndKill(
  file: string,
  resets: number,
  delayMs: number,
  maxResets?: number,
): Promise<string[]> {
  const args = [writer, file, "15", ...(maxResets === undefined ? [] : [String(maxResets)])];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  let killing = false;
  const exited = new Promise((resolve) => child.on("exit", resolve));
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    output += chunk;
    if (!killing && output.split("\nr done\n").length - 1 >= resets) {
      killing = true;
      setTimeout(() => child.kill("SIGKILL"), delayMs);
    }
  });
  expect(await exited).toBeNull();
  const lines = output.split("\n");
  lines.pop(); // a line cut short by the kill
  expect(lines[0]).toBe("ready");
  return lines.slice(1);
}

async function writeOpening(file: string): Promise<void> {
  await writeFile(
    file,
    "[\n" +
      opening.map((p) => JSON.stringify({ ...p, id: Number(p.id), categoryId: 1 })).join(",\n") +
      "\n]\n",
  );
}

/** Restarts the store on `file`: the names of the pets it serves besides the opening ones. */
async function servedAfterRestart(file: string): Promise<Set<string>> {
  const pets = parseJson(await readFile(file, "utf8")) as Pet[];
  expect(new Set(pets.map((p) => p.id)).size).toBe(pets.length);
  const store = await openFileStore({ file });
  try {
    const all = parseJson(store.listJson({ limit: 100 })) as Pet[];
    // The list shows at most 100: read the rest one by one (ids skip those a reset removed).
    for (let id = all[all.length - 1]!.id + 1n; all.length < store.size; id++) {
      const json = store.getJson(id);
      if (json !== undefined) all.push(parseJson(json) as Pet);
    }
    for (const p of opening) expect(store.getJson(p.id), `opening pet ${p.id}`).toContain(p.name);
    return new Set(all.map((p) => p.name).filter((name) => name.startsWith("Crash ")));
  } finally {
    await store.close();
  }
}

/** The names of the creates printed in `lines[from, to)`. */
function creates(lines: string[], from: number, to = lines.length): string[] {
  return lines
    .slice(from, to)
    .filter((line) => line.startsWith("c "))
    .map((line) => line.slice(2));
}

const opening = demoPets(10);

it("keeps the last reset, and every create after it, across kill -9", async () => {
  // The writer stops resetting after `resets`: no reset is under way at the kill.
  for (const [resets, delayMs] of [
    [1, 0],
    [2, 7],
    [3, 16],
    [1, 30],
  ] as const) {
    const file = path.join(dir, `pets-${resets}-${delayMs}.json`);
    await writeOpening(file);
    const lines = await runAndKill(file, resets, delayMs, resets);
    const lastDone = lines.lastIndexOf("r done");
    const before = creates(lines, 0, lines.lastIndexOf("r start", lastDone));
    const after = creates(lines, lastDone + 1);
    expect(before.length).toBeGreaterThan(0);

    const served = await servedAfterRestart(file);
    for (const name of after) expect(served.has(name), `${name} kept`).toBe(true);
    for (const name of before) expect(served.has(name), `${name} gone`).toBe(false);
  }
});

it("keeps one side of a reset cut short by kill -9, whole", async () => {
  // Resets every 15 ms, so the kill often lands in one: the reset either took
  // effect (every create printed before it is gone) or did not (the last finished
  // reset stands, with every create after it).
  for (const [resets, delayMs] of [
    [1, 14],
    [2, 15],
    [3, 16],
    [2, 17],
  ] as const) {
    const file = path.join(dir, `pets-in-flight-${resets}-${delayMs}.json`);
    await writeOpening(file);
    const lines = await runAndKill(file, resets, delayMs);
    const lastDone = lines.lastIndexOf("r done");
    const nextStart = lines.indexOf("r start", lastDone);
    const before = creates(lines, 0, lines.lastIndexOf("r start", lastDone));
    const afterDone = creates(lines, lastDone + 1, nextStart === -1 ? lines.length : nextStart);
    expect(before.length).toBeGreaterThan(0);

    const served = await servedAfterRestart(file);
    for (const name of before) expect(served.has(name), `${name} gone`).toBe(false);
    // The reset under way took effect: no create printed since the last "r done" is
    // served (none is acknowledged between a reset's rename and its "r done").
    const tookEffect =
      nextStart !== -1 && creates(lines, lastDone + 1).every((name) => !served.has(name));
    if (!tookEffect) {
      for (const name of afterDone) expect(served.has(name), `${name} kept`).toBe(true);
    }
  }
});
