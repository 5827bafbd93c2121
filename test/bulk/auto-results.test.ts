/**
 * The results file a long run gets without --results, on real files: written only
 * where nothing is, never through a symbolic link, and refusing to send an input
 * again when its earlier run is recorded there.
 */
import { execFileSync } from "node:child_process";
import {
  lstat,
  mkdir,
  readFile,
  readdir,
  readlink,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { basename, join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AUTO_RESULTS_ROWS, openAutoResults } from "../../src/bulk/auto-results.js";
import { ResultsWriter } from "../../src/bulk/results.js";
import { UsageError } from "../../src/errors.js";
import { createTestIO } from "../test-io.js";
import { tempDir } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

const header = (input: string) => ({ input, format: "csv", startedAt: "2030-01-01T00:00:00.000Z" });

async function attempt(from: string, rows = AUTO_RESULTS_ROWS + 1) {
  const io = createTestIO();
  const results = await openAutoResults(from, rows, header(from), 1, io);
  await results?.close();
  return { results, err: io.err() };
}

describe("the results file of a long run", () => {
  it("is written next to the input for more than 100 rows, created private, with no lock left", async () => {
    const input = join(dir, "pets.csv");
    await writeFile(input, "");
    const { results, err } = await attempt(input);
    const path = `${input}.results.ndjson`;
    expect(results?.path).toBe(path);
    expect(err).toBe(
      `petstore add: each row's outcome goes to ${path} (if the run stops, --resume ${path} continues it)\n`,
    );
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual({ run: header(input) });
    expect((await readdir(dir)).sort()).toEqual(["pets.csv", "pets.csv.results.ndjson"]);
  });

  it("is not written for 100 rows, and nothing is said", async () => {
    const input = join(dir, "small.csv");
    const { results, err } = await attempt(input, AUTO_RESULTS_ROWS);
    expect(results).toBeUndefined();
    expect(err).toBe("");
    await expect(lstat(`${input}.results.ndjson`)).rejects.toThrow("ENOENT");
  });

  it("is not written for stdin, which says the run cannot be resumed and how to record it", async () => {
    const { results, err } = await attempt("-");
    expect(results).toBeUndefined();
    expect(err).toBe(
      "petstore add: the rows come from stdin; no results file is written, so this run cannot be resumed if it stops (--results <file> records each row's outcome)\n",
    );
  });

  it("refuses the run when the file records an earlier run of the same input, however it was named", async () => {
    const input = join(dir, "again.csv");
    const path = `${input}.results.ndjson`;
    const text = `{"run":{"input":"${relative(process.cwd(), input)}","format":"csv","startedAt":"x"}}\n{"row":1,"line":2,"outcome":"added","id":7}\n`;
    await writeFile(path, text);
    const error = await attempt(input).then(
      () => undefined,
      (e: unknown) => e as UsageError,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect(error?.message).toBe(`${path} records an earlier run of ${input}; nothing was sent`);
    expect(error?.hint).toContain(`--resume ${path}`);
    expect(await readFile(path, "utf8")).toBe(text);
  });

  it.each([
    ["notes", "call the shelter\n"],
    ["an empty file", ""],
    ["the results file of another input", '{"run":{"input":"other.csv","format":"csv"}}\n'],
  ])("leaves %s in its place as it was, and says the run cannot be resumed", async (_, text) => {
    const input = join(dir, "kept.csv");
    const path = `${input}.results.ndjson`;
    await writeFile(path, text);
    const { results, err } = await attempt(input);
    expect(results).toBeUndefined();
    expect(err).toBe(
      `petstore add: ${path} is not the results file of ${input} and was left as it was; no results file is written, so this run cannot be resumed if it stops (--results <file> records each row's outcome)\n`,
    );
    expect(await readFile(path, "utf8")).toBe(text);
  });

  it("never follows a symbolic link there, dangling or not", async () => {
    const input = join(dir, "linked.csv");
    const path = `${input}.results.ndjson`;
    const dangling = join(dir, "nowhere.ndjson");
    await symlink(dangling, path);
    const first = await attempt(input);
    expect(first.results).toBeUndefined();
    expect(first.err).toContain(`${path} is a symbolic link, which is never followed;`);
    expect(first.err).toContain("cannot be resumed");
    await expect(lstat(dangling)).rejects.toThrow("ENOENT");

    const target = join(dir, "target.ndjson");
    await writeFile(target, `{"run":{"input":"${basename(input)}","format":"csv"}}\n`);
    const other = join(dir, "linked2.csv");
    await symlink(target, `${other}.results.ndjson`);
    const second = await attempt(other);
    expect(second.results).toBeUndefined();
    expect(second.err).toContain("is a symbolic link, which is never followed");
    expect(await readlink(`${other}.results.ndjson`)).toBe(target);
  });

  it("is created, never opened: a file or link that appears after the check fails the open", async () => {
    const empty = join(dir, "raced.ndjson");
    await writeFile(empty, "");
    const dangling = join(dir, "raced-link.ndjson");
    const target = join(dir, "raced-target.ndjson");
    await symlink(target, dangling);
    for (const path of [empty, dangling]) {
      expect(() =>
        ResultsWriter.open({ path, header: header("x.csv"), concurrency: 1, exclusive: true }),
      ).toThrow(`cannot write the results file ${path} (EEXIST)`);
    }
    expect(await readFile(empty, "utf8")).toBe("");
    await expect(lstat(target)).rejects.toThrow("ENOENT");
    // Without `exclusive` (--results), an empty file is taken: the difference is the point.
    const taken = ResultsWriter.open({ path: empty, header: header("x.csv"), concurrency: 1 });
    await taken.close();
    expect(await readFile(empty, "utf8")).toContain('{"run":');
  });

  it("leaves a directory or a FIFO there alone, without opening it", async () => {
    const input = join(dir, "odd.csv");
    const path = `${input}.results.ndjson`;
    await mkdir(path);
    expect((await attempt(input)).err).toContain(`${path} is not a regular file;`);
    const fifoInput = join(dir, "fifo.csv");
    execFileSync("mkfifo", [`${fifoInput}.results.ndjson`]);
    expect((await attempt(fifoInput)).err).toContain("is not a regular file;");
  });
});
