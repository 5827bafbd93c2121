/**
 * `--json` and `-q` of a resumed run (the engine against the fake, in process):
 * rows added before are reported with their ids, rows held back as unknown are
 * said to be, and the rest as this run finds them.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runBulkAdd } from "../../src/bulk/engine.js";
import { digestOf, petBody } from "../../src/bulk/rows.js";
import { EXIT } from "../../src/errors.js";
import { parseJson } from "../../src/schema/json.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { KEY, csvOf, deps, options, tempDir, writeInput } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir()));
afterAll(() => cleanup());

let server: RunningServer;
beforeEach(async () => {
  server = await startServer({ keys: [`${KEY}:enterprise`], quiet: true });
});
afterEach(() => server.close());

/** The digest csvOf's row `row` is sent with. */
const digest = (row: number) =>
  digestOf(petBody({ name: `pet-${row}`, categoryId: BigInt(row % 7), status: "available" }));

/** An earlier run: row 1 added (an id above 2^53), row 3 cut off while sending, row 4 refused. */
async function earlierRun(name: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(
    path,
    '{"run":{"input":"pets.csv","format":"csv","startedAt":"2030-01-01T00:00:00.000Z"}}\n' +
      `{"row":1,"line":2,"outcome":"added","id":9007199254740993,"digest":"${digest(1)}"}\n` +
      `{"row":3,"line":4,"outcome":"sending","digest":"${digest(3)}"}\n` +
      `{"row":4,"line":5,"outcome":"failed","error":{"message":"no","status":400},"digest":"${digest(4)}"}\n`,
  );
  return path;
}

describe("a resumed run on stdout", () => {
  it("--json: rows added before with their exact ids, held rows as unknown, the rest as they go", async () => {
    const input = await writeInput(dir, "resume-json.csv", csvOf(6));
    const resume = await earlierRun("resume-json.results");
    const d = deps(server.url);
    const report = await runBulkAdd(options(input, { resume, stdout: "json" }), d);
    expect(report.exitCode).toBe(EXIT.OUTCOME_UNKNOWN);
    const lines = d.io
      .out()
      .trimEnd()
      .split("\n")
      .map((line) => parseJson(line) as Record<string, unknown>);
    const byRow = new Map(lines.map((line) => [Number(line.row), line]));
    expect(lines).toHaveLength(6);
    expect(byRow.get(1)).toEqual({
      row: 1n,
      line: 2n,
      outcome: "added",
      id: 9007199254740993n,
      earlier: true,
    });
    expect(byRow.get(3)).toMatchObject({ row: 3n, line: 4n, outcome: "unknown", earlier: true });
    for (const row of [2, 4, 5, 6]) {
      expect(byRow.get(row)).toMatchObject({ outcome: "added" });
      expect(byRow.get(row)!.earlier).toBeUndefined();
    }
    expect(d.io.out()).toContain('"id":9007199254740993,');
  });

  it("-q: the ids of rows added before and now, in input order; nothing for the held row", async () => {
    const input = await writeInput(dir, "resume-ids.csv", csvOf(6));
    const resume = await earlierRun("resume-ids.results");
    const d = deps(server.url);
    await runBulkAdd(options(input, { resume, stdout: "ids" }), d);
    const ids = d.io.out().trimEnd().split("\n");
    expect(ids[0]).toBe("9007199254740993");
    const names = ids
      .slice(1)
      .map((id) => (parseJson(server.store.getJson(BigInt(id))!) as { name: string }).name);
    expect(names).toEqual(["pet-2", "pet-4", "pet-5", "pet-6"]);
  });
});
