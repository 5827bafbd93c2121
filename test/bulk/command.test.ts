import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { runBulkCommand, summaryLine } from "../../src/commands/add-from.js";
import { DEFAULT_CONCURRENCY, bulkOptionsFrom } from "../../src/commands/add-from-options.js";
import { buildProgram } from "../../src/commands/program.js";
import { BULK_OPTIONS } from "../../src/commands/add-from-options.js";
import { Outcomes, formatElapsed } from "../../src/bulk/outcomes.js";
import { EXIT, PetstoreError, UsageError } from "../../src/errors.js";
import { createFactory } from "../../src/commands/factory.js";
import { createTestIO } from "../test-io.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { KEY, csvOf, tempDir, writeInput } from "./helpers.js";

/** `petstore add` as the program declares it. */
const ADD_COMMAND = buildProgram(createFactory({ io: createTestIO(), env: {} }), ["add"])
  .commands[0]!;

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir()));
afterAll(() => cleanup());

describe("bulk flags", () => {
  const parse = (values: Record<string, string | boolean>) => () => bulkOptionsFrom(values, {});

  it("take defaults from the request flags and a measured concurrency", () => {
    const { bulk } = bulkOptionsFrom({ from: "pets.csv", timeout: "3", maxRetries: "2" }, {});
    expect(bulk).toMatchObject({
      from: "pets.csv",
      concurrency: 16,
      timeoutMs: 3_000,
      skipInvalid: false,
    });
    expect(bulk.retry.limit).toBe(2);
  });

  it("are in the help of add, with the default concurrency it states", () => {
    const flags = ADD_COMMAND.options.map((option) => option.flags.split(" ")[0]);
    for (const flag of [
      "--from",
      "--format",
      "--skip-invalid",
      "--results",
      "--resume",
      "--retry-unknown",
    ]) {
      expect(flags).toContain(flag);
    }
    const concurrency = ADD_COMMAND.options.find((o) => o.flags.startsWith("--concurrency"));
    expect(concurrency?.description).toContain(`(${DEFAULT_CONCURRENCY})`);
  });

  it("are declared once, and are add's own options", () => {
    for (const option of BULK_OPTIONS) expect(ADD_COMMAND.options).toContain(option);
  });

  it("are described in add's help as they work with --from (a line per row, ids in input order)", () => {
    const help = (flag: string) =>
      ADD_COMMAND.options.find((o) => o.flags.split(", ").includes(flag))?.description;
    expect(help("--output <format>")).toMatch(/with --from, ndjson only$/);
    expect(help("--json")).toMatch(/with --from, one NDJSON line per row's outcome$/);
    expect(help("--quiet")).toMatch(/with --from, one per added row, in input order$/);
  });

  it("take --json, --output ndjson and -q for each row's outcome on stdout", () => {
    const mode = (values: Record<string, string | boolean>) =>
      bulkOptionsFrom({ from: "a.csv", ...values }, {}).bulk.stdout;
    expect(mode({})).toBeUndefined();
    expect(mode({ json: true })).toBe("json");
    expect(mode({ output: "ndjson" })).toBe("json");
    expect(mode({ output: "ndjson", json: true })).toBe("json");
    expect(mode({ quiet: true })).toBe("ids");
    for (const output of ["json", "table", "tsv", "csv", "yaml"]) {
      expect(parse({ from: "a.csv", output }), output).toThrow(
        `one NDJSON line per row; --output ${output} does not apply`,
      );
    }
    expect(parse({ from: "a.csv", quiet: true, json: true })).toThrow(
      "-q/--quiet prints the ids of the added rows; it conflicts with --json",
    );
    expect(parse({ from: "a.csv", quiet: true, output: "ndjson" })).toThrow(
      "it conflicts with --output ndjson",
    );
  });

  it("refuse what does not go with a file of pets, naming the flags", () => {
    expect(parse({ from: "a.csv", name: "Rex", categoryId: "2", json: true })).toThrow(
      "it does not go with --name, --category-id",
    );
    const hintOf = (values: Record<string, string | boolean>) => {
      try {
        bulkOptionsFrom(values, {});
      } catch (error) {
        return (error as UsageError).hint;
      }
      return undefined;
    };
    expect(hintOf({ from: "a.csv", output: "csv" })).toBe(
      "use --json (or --output ndjson) for a line per row, or -q for the ids of the added rows",
    );
    expect(hintOf({ from: "a.csv", status: "sold" })).toBe(
      "add that pet as a row of the file, or on its own without --from",
    );
    expect(parse({ concurrency: "4", skipInvalid: true })).toThrow(
      "--skip-invalid, --concurrency only go with --from",
    );
    expect(parse({ from: "a.csv", retryUnknown: true })).toThrow("it needs --resume");
    expect(parse({ from: "a.csv", format: "xml" })).toThrow(
      "--format must be one of csv, ndjson, json",
    );
    expect(parse({ from: "a.csv", concurrency: "0" })).toThrow(
      "--concurrency must be an integer from 1 to 64",
    );
    expect(parse({ from: "a.csv", concurrency: "65" })).toThrow(UsageError);
    // --resume continues its own file: one run, one file.
    expect(parse({ from: "a.csv", resume: "old.ndjson", results: "new.ndjson" })).toThrow(
      "--resume continues the results file it names",
    );
    expect(parse({ from: "a.csv", resume: "same.ndjson", results: "same.ndjson" })).not.toThrow();
  });
});

describe("the command", () => {
  let server: RunningServer;
  beforeEach(async () => {
    server = await startServer({ keys: [`${KEY}:enterprise`], quiet: true });
  });
  afterEach(() => server.close());

  const factoryFor = (stdin?: string, stdoutFailure?: NodeJS.ErrnoException) => {
    const io = createTestIO({ stdin, env: {}, ...(stdoutFailure ? { stdoutFailure } : {}) });
    const env = { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: KEY, PETSTORE_CONFIG_DIR: dir };
    return { io, factory: createFactory({ io, env }) };
  };

  it("prints a summary on stderr and nothing on stdout", async () => {
    const input = await writeInput(dir, "cmd.csv", csvOf(3));
    const { io, factory } = factoryFor();
    await runBulkCommand({ from: input }, factory);
    expect(io.out()).toBe("");
    expect(io.err()).toMatch(
      /^petstore add: 3 added, 0 invalid, 0 failed, 0 outcome unknown \(3 rows in \d+\.\d s\)\n$/,
    );
  });

  it("reads a test IO's stdin whole when it cannot stream it", async () => {
    const { factory } = factoryFor('{"name":"in","categoryId":1}\n');
    const report = await runBulkCommand({ from: "-" }, factory);
    expect(report.added).toBe(1);
  });

  it("turns a run that did not add every row into an error with the exit code and a hint", async () => {
    const input = await writeInput(dir, "cmd-bad.csv", "name,categoryId\na,1\nb,x\n");
    const results = join(dir, "cmd-bad.results");
    const { io, factory } = factoryFor();
    const error = await runBulkCommand({ from: input, skipInvalid: true, results }, factory).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PetstoreError);
    expect(error).toMatchObject({
      exitCode: EXIT.USAGE,
      message: "not every row was added: 1 invalid row skipped",
    });
    expect((error as PetstoreError).hint).toContain(results);
    expect(io.err()).toContain("1 added, 1 invalid");
  });
});

describe("the command, with outcomes on stdout", () => {
  let server: RunningServer;
  beforeEach(async () => {
    server = await startServer({ keys: [`${KEY}:enterprise`], quiet: true });
  });
  afterEach(() => server.close());

  const factoryFor = (stdoutFailure?: NodeJS.ErrnoException) => {
    const io = createTestIO({ env: {}, ...(stdoutFailure ? { stdoutFailure } : {}) });
    const env = { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: KEY, PETSTORE_CONFIG_DIR: dir };
    return { io, factory: createFactory({ io, env }) };
  };

  it("fails with exit 1 when the ids cannot reach stdout, naming the results file that has them", async () => {
    const full = Object.assign(new Error("ENOSPC: no space left on device, write"), {
      code: "ENOSPC",
      errno: -28,
    });
    const input = await writeInput(dir, "cmd-full.csv", csvOf(101));
    const { io, factory } = factoryFor(full);
    const error = await runBulkCommand({ from: input, quiet: true }, factory).catch(
      (e: unknown) => e as PetstoreError,
    );
    expect(error).toBeInstanceOf(PetstoreError);
    expect(error).toMatchObject({
      exitCode: EXIT.UNEXPECTED,
      message:
        "the rows were added, but could not write to standard output: no space left on device (ENOSPC)",
      hint: `each row's outcome and id is in ${input}.results.ndjson`,
    });
    expect(io.err()).toContain("101 added");
    expect(server.store.size).toBe(101);
  });

  it("names the results file of a long run in the hint of a run that did not add every row", async () => {
    const input = await writeInput(dir, "cmd-long.csv", csvOf(120) + "bad,x\n");
    const { io, factory } = factoryFor();
    const error = await runBulkCommand(
      { from: input, skipInvalid: true, json: true },
      factory,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PetstoreError);
    expect(error).toMatchObject({
      exitCode: EXIT.USAGE,
      hint: `${input}.results.ndjson lists each row's outcome`,
    });
    expect(io.out().trimEnd().split("\n")).toHaveLength(121);
  });
});

describe("durations", () => {
  it("tells time spent to the tenth under 10 s, then to the nearest second", () => {
    const cases: Array<[number, string]> = [
      [0, "0.1 s"],
      [1_180, "1.2 s"],
      [1_249, "1.2 s"],
      [9_949, "9.9 s"],
      [9_950, "10 s"],
      [62_400, "62 s"],
      [125_400, "2 min 5 s"],
    ];
    for (const [ms, text] of cases) expect(formatElapsed(ms), String(ms)).toBe(text);
  });
});

/** A run of `toSend` rows, all to be sent. */
const plan = (toSend: number) => ({
  rows: toSend,
  toSend,
  invalid: 0,
  previouslyAdded: 0,
  heldUnknown: 0,
});

describe("progress", () => {
  it("on a terminal, redraws a spinner with done, left and the rate-limit wait", async () => {
    const io = createTestIO({ stderrTTY: true });
    let now = 0;
    const progress = new Outcomes(plan(10), io, () => now);
    progress.start();
    for (let row = 1; row <= 4; row++) progress.record({ row, line: row + 1, outcome: "added" });
    now = 2_000;
    progress.waiting(42_000, "rate limit reached");
    now = 3_000;
    progress.waiting(undefined, "");
    progress.waiting(33_000, "retrying after a network error");
    progress.stop();
    const texts = io.spinnerEvents.map((event) => event.text);
    expect(texts[0]).toBe("adding pets: 0 of 10 done, 10 left");
    expect(texts).toContain(
      "adding pets: 4 of 10 done, 6 left, 2 rows/s; rate limit reached: next request in 40 s",
    );
    expect(texts.at(-2)).toMatch(/; retrying after a network error: next request in 30 s$/);
    expect(io.spinnerEvents.at(-1)?.event).toBe("stop");
  });

  it("elsewhere, writes one plain line when a long wait begins", () => {
    const io = createTestIO();
    const progress = new Outcomes(plan(1), io, () => Date.UTC(2030, 0, 1, 12, 0, 20));
    progress.start();
    progress.waiting(Date.UTC(2030, 0, 1, 12, 1, 0, 250), "rate limit reached");
    progress.waiting(Date.UTC(2030, 0, 1, 12, 1, 0, 250), "rate limit reached");
    progress.stop();
    expect(io.err()).toBe("petstore add: rate limit reached; waiting 41 s (until 12:01:00 UTC)\n");
    expect(io.spinnerEvents).toEqual([]);
  });

  it("elsewhere, writes a plain line of done, left and rate every 5 s, and nothing between", () => {
    vi.useFakeTimers({ now: Date.UTC(2030, 0, 1, 12, 0, 0) });
    try {
      const io = createTestIO();
      const progress = new Outcomes(plan(5_000), io, () => Date.now());
      progress.start();
      let row = 0;
      for (let second = 1; second <= 11; second++) {
        for (let n = 0; n < 200; n++) progress.record({ row: ++row, line: row, outcome: "added" });
        vi.advanceTimersByTime(1_000);
      }
      progress.stop();
      vi.advanceTimersByTime(10_000);
      expect(io.err().split("\n").filter(Boolean)).toEqual([
        "petstore add: 1,000 of 5,000 done, 4,000 left, 200 rows/s",
        "petstore add: 2,000 of 5,000 done, 3,000 left, 200 rows/s",
      ]);
      expect(io.spinnerEvents).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("summarises a run in one line", () => {
    const line = summaryLine({
      rows: 1500,
      added: 1200,
      previouslyAdded: 250,
      invalid: 10,
      failed: 5,
      unknown: 3,
      notSent: 32,
      unknownRows: [],
      elapsedMs: 125_000,
      exitCode: EXIT.OUTCOME_UNKNOWN,
    });
    expect(line).toBe(
      "petstore add: 1,200 added, 250 added before, 10 invalid, 5 failed, 3 outcome unknown, 32 not sent (1,500 rows in 2 min 5 s)",
    );
  });
});
