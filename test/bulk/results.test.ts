import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readlinkSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PriorRuns, PriorState, readPriorRuns } from "../../src/bulk/prior-runs.js";
import { ResultsWriter } from "../../src/bulk/results.js";
import { UsageError } from "../../src/errors.js";
import { tempDir } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir()));
afterAll(() => cleanup());

const header = { input: "pets.csv", format: "csv", startedAt: "2030-01-01T00:00:00.000Z" };
const D1 = "0123456789abcdef";
const D2 = "fedcba9876543210";
/** The first line of every results file. */
const RUN = `{"run":{"input":"pets.csv","format":"csv","startedAt":"2030-01-01T00:00:00.000Z"}}\n`;

describe("results file", () => {
  it("writes one JSON line per record, int64 ids exact, after a run line", async () => {
    const path = join(dir, "write.results");
    const writer = ResultsWriter.open({ path, header, concurrency: 1 });
    writer.record({ row: 1, line: 2, outcome: "sending", digest: D1 });
    writer.record({ row: 1, line: 2, outcome: "added", digest: D1, id: 9223372036854775807n });
    writer.record({
      row: 2,
      line: 3,
      outcome: "invalid",
      problems: [{ field: "name", message: "is required" }],
    });
    await writer.close();
    expect((await readFile(path, "utf8")).split("\n")).toEqual([
      `{"run":{"input":"pets.csv","format":"csv","startedAt":"2030-01-01T00:00:00.000Z"}}`,
      `{"row":1,"line":2,"outcome":"sending","digest":"${D1}"}`,
      `{"row":1,"line":2,"outcome":"added","id":9223372036854775807,"digest":"${D1}"}`,
      `{"row":2,"line":3,"outcome":"invalid","problems":[{"field":"name","message":"is required"}]}`,
      "",
    ]);
  });

  it("writes a turn's lines together: on flush(), at the end of the turn (written()), or at close", async () => {
    const path = join(dir, "batched.results");
    const writer = ResultsWriter.open({ path, header, concurrency: 1 });
    // Read synchronously: an asynchronous read would let the turn end (and the lines be written).
    // The room claimed after the last line (spaces) is not a line.
    const lines = () =>
      readFileSync(path, "utf8")
        .split("\n")
        .filter((l) => l.trim() !== "");
    writer.record({ row: 1, line: 2, outcome: "sending", digest: D1 });
    writer.record({ row: 2, line: 3, outcome: "sending", digest: D2 });
    expect(lines()).toHaveLength(1);
    writer.flush();
    expect(lines()).toHaveLength(3);
    writer.record({ row: 1, line: 2, outcome: "added", digest: D1, id: 7n });
    const turn = writer.written();
    expect(writer.written()).toBe(turn);
    expect(lines()).toHaveLength(3);
    expect(await turn).toBe(true);
    expect(lines().slice(1)).toEqual([
      `{"row":1,"line":2,"outcome":"sending","digest":"${D1}"}`,
      `{"row":2,"line":3,"outcome":"sending","digest":"${D2}"}`,
      `{"row":1,"line":2,"outcome":"added","id":7,"digest":"${D1}"}`,
    ]);
    writer.record({ row: 2, line: 3, outcome: "failed", digest: D2, error: { message: "no" } });
    await writer.close();
    expect(lines().at(-1)).toBe(
      `{"row":2,"line":3,"outcome":"failed","digest":"${D2}","error":{"message":"no"}}`,
    );
  });

  it("holds a lock while open, refuses a second writer, and takes over the lock of a dead run", async () => {
    const path = join(dir, "locked.results");
    const writer = ResultsWriter.open({ path, header, concurrency: 1 });
    expect(() =>
      ResultsWriter.open({ path: join(dir, "locked.results"), header, concurrency: 1 }),
    ).toThrow(/in use by another petstore add/);
    await writer.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
    // A lock left by a process that no longer runs (pid 2^22 + 1 is beyond Linux's pid range).
    await writeFile(`${path}.lock`, `${2 ** 22 + 1}\n`);
    const prior = await readPriorRuns(path);
    const again = ResultsWriter.open({
      path,
      header,
      concurrency: 1,
      resume: prior,
    });
    await again.close();
  });

  it("refuses a lock file that is a symlink, naming it, and leaves it and its target alone", async () => {
    const path = join(dir, "symlinked-lock.results");
    const victim = join(dir, "victim.txt");
    await writeFile(victim, "precious\n");
    await symlink(victim, `${path}.lock`);
    const error = (() => {
      try {
        ResultsWriter.open({ path, header, concurrency: 1 });
      } catch (e) {
        return e;
      }
    })() as UsageError;
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toContain(`its lock file ${path}.lock is a symbolic link`);
    expect(error.hint).toContain(`delete ${path}.lock`);
    expect(readlinkSync(`${path}.lock`)).toBe(victim);
    expect(await readFile(victim, "utf8")).toBe("precious\n");
    expect(existsSync(path)).toBe(false);
  });

  it("refuses a results path that is a device, a FIFO or a directory, and writes nothing there", async () => {
    const device = join(dir, "null-device");
    execFileSync("mknod", [device, "c", "1", "3"]);
    const fifo = join(dir, "results.fifo");
    execFileSync("mkfifo", [fifo]);
    const directory = join(dir, "results-dir");
    await mkdir(directory);
    for (const path of [device, fifo, directory]) {
      expect(() => ResultsWriter.open({ path, header, concurrency: 1 })).toThrow(
        new RegExp(`the results file ${path} is not a regular file`),
      );
      expect(existsSync(`${path}.lock`)).toBe(false);
    }
  });

  it("refuses a FIFO put where the file it resumes was, after the file was read", () => {
    // readPriorRuns read a regular file; by the time the writer opens it, a FIFO stands there.
    const path = join(dir, "swapped.results");
    execFileSync("mkfifo", [path]);
    expect(() =>
      ResultsWriter.open({
        path,
        header,
        concurrency: 1,
        resume: Object.assign(new PriorRuns(path), { validBytes: RUN.length, size: RUN.length }),
      }),
    ).toThrow(new RegExp(`the results file ${path} is not a regular file`));
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it("refuses to start a new run in an existing file", async () => {
    const path = join(dir, "exists.results");
    await writeFile(path, "{}\n");
    expect(() => ResultsWriter.open({ path, header, concurrency: 1 })).toThrow(UsageError);
  });
});

describe("reading earlier runs (--resume)", () => {
  it("takes each row's last line, with its digest", async () => {
    const path = join(dir, "last.results");
    await writeFile(
      path,
      [
        '{"run":{"input":"a.csv"}}',
        `{"row":1,"line":2,"outcome":"sending","digest":"${D1}"}`,
        `{"row":2,"line":3,"outcome":"sending","digest":"${D2}"}`,
        `{"row":1,"line":2,"outcome":"added","id":1,"digest":"${D1}"}`,
        '{"row":3,"line":4,"outcome":"invalid","problems":[]}',
        `{"row":5000,"line":5001,"outcome":"failed","error":{"message":"x"},"digest":"${D2}"}`,
        "",
      ].join("\n"),
    );
    const prior = await readPriorRuns(path);
    expect([1, 2, 3, 4, 5000].map((row) => prior.state(row))).toEqual([
      PriorState.Added,
      PriorState.Sending,
      PriorState.Invalid,
      PriorState.None,
      PriorState.Failed,
    ]);
    expect(prior.sameContent(1, D1)).toBe(true);
    expect(prior.sameContent(1, D2)).toBe(false);
    expect(prior.sameContent(3, D1)).toBe(false);
    expect([...prior.sentBeyond(1)]).toEqual([2]);
    expect(prior.maxRow).toBe(5000);
  });

  it("drops a last line cut short, and truncates it away when the run continues", async () => {
    const path = join(dir, "torn.results");
    const good = `${RUN}{"row":1,"line":2,"outcome":"sending","digest":"${D1}"}\n`;
    await writeFile(path, good + '{"row":1,"line":2,"outcome":"add');
    const prior = await readPriorRuns(path);
    expect(prior.state(1)).toBe(PriorState.Sending);
    expect(prior.validBytes).toBe(Buffer.byteLength(good));
    const writer = ResultsWriter.open({
      path,
      header,
      concurrency: 1,
      resume: prior,
    });
    writer.record({ row: 1, line: 2, outcome: "unknown", digest: D1 });
    await writer.close();
    const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
    expect(lines.map((line) => JSON.parse(line) as object)).toHaveLength(4);
  });

  it("claims room before the lines that fill it; a run killed with it is resumed right after its last line", async () => {
    const path = join(dir, "room.results");
    const writer = ResultsWriter.open({ path, header, concurrency: 1 });
    expect(await writer.sending(1, 2, D1)).toBe(true);
    // What a run killed now (kill -9) leaves: its lines, then room (spaces, no line break).
    const killed = readFileSync(path, "utf8");
    const sending = `{"row":1,"line":2,"outcome":"sending","digest":"${D1}"}\n`;
    expect(killed.startsWith(RUN + sending)).toBe(true);
    expect(killed.length).toBeGreaterThanOrEqual(64 * 1024);
    expect(killed.slice((RUN + sending).length)).toMatch(/^ +$/);
    await writeFile(join(dir, "room-killed.results"), killed);
    writer.record({ row: 1, line: 2, outcome: "added", digest: D1, id: 5n }, true);
    await writer.close();
    // A run that ends cuts the room it did not use.
    expect(await readFile(path, "utf8")).toBe(
      RUN + sending + `{"row":1,"line":2,"outcome":"added","id":5,"digest":"${D1}"}\n`,
    );

    const copy = join(dir, "room-killed.results");
    const prior = await readPriorRuns(copy);
    expect(prior.state(1)).toBe(PriorState.Sending);
    expect(prior.validBytes).toBe(Buffer.byteLength(RUN + sending));
    const resumed = ResultsWriter.open({
      path: copy,
      header,
      concurrency: 1,
      resume: prior,
    });
    resumed.record({ row: 1, line: 2, outcome: "unknown", digest: D1 });
    await resumed.close();
    expect(await readFile(copy, "utf8")).toBe(
      RUN + sending + RUN + `{"row":1,"line":2,"outcome":"unknown","digest":"${D1}"}\n`,
    );
  });

  it("cuts nothing when the file gained lines after it was read (another run): refused, left as it was", async () => {
    const path = join(dir, "grew.results");
    const first = `${RUN}{"row":1,"line":2,"outcome":"sending","digest":"${D1}"}\n`;
    await writeFile(path, first + '{"row":1,"line":2,"outcome":"add');
    const prior = await readPriorRuns(path);
    const grown = first + `{"row":1,"line":2,"outcome":"added","id":4,"digest":"${D1}"}\n`;
    await writeFile(path, grown);
    expect(() => ResultsWriter.open({ path, header, concurrency: 1, resume: prior })).toThrow(
      /changed after it was read/,
    );
    expect(await readFile(path, "utf8")).toBe(grown);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it("keeps a whole last line that lost only its newline", async () => {
    const path = join(dir, "nonewline.results");
    await writeFile(path, `${RUN}{"row":1,"line":2,"outcome":"added","id":3,"digest":"${D1}"}`);
    const prior = await readPriorRuns(path);
    expect(prior.state(1)).toBe(PriorState.Added);
    const writer = ResultsWriter.open({
      path,
      header,
      concurrency: 1,
      resume: prior,
    });
    await writer.close();
    expect((await readFile(path, "utf8")).split("\n")[2]).toMatch(/^\{"run"/);
  });

  it("refuses a file with a broken line before good ones: it is not a results file", async () => {
    const path = join(dir, "corrupt.results");
    await writeFile(
      path,
      `${RUN}name,categoryId\n{"row":1,"line":2,"outcome":"added","digest":"${D1}"}\n`,
    );
    await expect(readPriorRuns(path)).rejects.toThrow(
      /line 2 is not a line of a petstore results file/,
    );
  });

  it("a line settled by hand, without a digest, keeps the row's digest", async () => {
    const path = join(dir, "settled.results");
    await writeFile(
      path,
      `${RUN}{"row":7,"line":8,"outcome":"unknown","digest":"${D1}"}\n{"row":7,"outcome":"added","id":12}\n`,
    );
    const prior = await readPriorRuns(path);
    expect(prior.state(7)).toBe(PriorState.Added);
    expect(prior.sameContent(7, D1)).toBe(true);
  });
});
