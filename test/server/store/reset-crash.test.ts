/**
 * kill -9 while pets are created and the store is reset: a restart serves the
 * opening pets with every create acknowledged after the last finished reset, and
 * none acknowledged before it started, in a valid file.
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
import { demoPets } from "../../../src/server/store/seed.js";

let dir: string;
let writer: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "petstore-reset-crash-"));
  writer = await bundleScript(new URL("fixtures/reset-writer.ts", import.meta.url), dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the writer until it printed `resets` finished resets and `delayMs` passed, then kill -9. */
async function runAndKill(file: string, resets: number, delayMs: number): Promise<string[]> {
  const child = spawn(process.execPath, [writer, file, "15"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
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

it("keeps a reset, and the creates after it, across kill -9 at different moments", async () => {
  const opening = demoPets(10);
  for (const [resets, delayMs] of [
    [1, 0],
    [2, 7],
    [3, 16],
    [1, 30],
  ] as const) {
    const file = path.join(dir, `pets-${resets}-${delayMs}.json`);
    await writeFile(
      file,
      "[\n" +
        opening.map((p) => JSON.stringify({ ...p, id: Number(p.id), categoryId: 1 })).join(",\n") +
        "\n]\n",
    );
    const lines = await runAndKill(file, resets, delayMs);
    const lastDone = lines.lastIndexOf("r done");
    const lastDoneStart = lines.lastIndexOf("r start", lastDone);
    const nextStart = lines.indexOf("r start", lastDone);
    const names = (from: number, to: number) =>
      lines
        .slice(from, to)
        .filter((line) => line.startsWith("c "))
        .map((line) => line.slice(2));
    const mustStay = names(lastDone + 1, nextStart === -1 ? lines.length : nextStart);
    const mustBeGone = names(0, lastDoneStart);
    expect(mustBeGone.length).toBeGreaterThan(0);

    const pets = parseJson(await readFile(file, "utf8")) as Pet[];
    expect(new Set(pets.map((p) => p.id)).size).toBe(pets.length);
    const store = await openFileStore({ file });
    const served = parseJson(store.listJson({ limit: 100 })) as Pet[];
    const all: Pet[] = [...served];
    // The list shows at most 100: read the rest one by one.
    for (let id = 101n; all.length < store.size; id++) {
      const json = store.getJson(id);
      if (json !== undefined) all.push(parseJson(json) as Pet);
    }
    const servedNames = new Set(all.map((p) => p.name));
    for (const p of opening) expect(store.getJson(p.id), `opening pet ${p.id}`).toContain(p.name);
    for (const name of mustStay) expect(servedNames.has(name), `${name} kept`).toBe(true);
    for (const name of mustBeGone) expect(servedNames.has(name), `${name} gone`).toBe(false);
    await store.close();
  }
});
