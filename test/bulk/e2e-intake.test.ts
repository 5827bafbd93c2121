/**
 * The real CLI reading files as spreadsheets export them, against a real fake:
 * what is added, and what stops the run (exit 2) before anything is sent.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHUNK_BYTES } from "../../src/bulk/input/utf8.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { ensureBuilt, runCli } from "./cli.js";
import { allPets, tempDir } from "./helpers.js";

const KEY = "intake-key";
let dir: string;
let cleanup: () => Promise<void>;
let server: RunningServer;
let env: Record<string, string>;

beforeAll(async () => {
  await ensureBuilt();
  ({ dir, cleanup } = await tempDir());
  server = await startServer({ keys: [`${KEY}:enterprise`], quiet: true });
  env = { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: KEY, PETSTORE_CONFIG_DIR: dir };
});
afterAll(async () => {
  await server?.close();
  await cleanup();
});

let files = 0;
async function file(name: string, content: string | Buffer): Promise<string> {
  const path = join(dir, `${++files}-${name}`);
  await writeFile(path, content);
  return path;
}

/**
 * Runs `petstore add` and gives what it added (the pets the store gained), by
 * category id: rows are sent concurrently, so the store's order is not the file's.
 */
async function add(args: string[], stdin?: string) {
  const before = allPets(server.store).length;
  const requestsBefore = server.stats().responses;
  const run = await runCli(["add", ...args], env, stdin);
  const added = allPets(server.store)
    .slice(before)
    .map((p) => [p.name, Number(p.categoryId), p.status] as const)
    .sort((a, b) => a[1] - b[1]);
  return { ...run, added, requests: server.stats().responses - requestsBefore };
}

const BOM = "\uFEFF";

describe("files as spreadsheets export them", () => {
  it("adds the rows of Excel's European CSV: semicolons, CRLF, a byte-order mark, empty rows below", async () => {
    const excel = await file(
      "excel.csv",
      `${BOM}name;categoryId;status\r\n"Rex; the ""good"" dog";1;sold\r\nBéla, Jr.;2;\r\n"two\nlines";3;pending\r\n;;\r\n;;\r\n`,
    );
    const run = await add(["--from", excel]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.added).toEqual([
      ['Rex; the "good" dog', 1, "sold"],
      ["Béla, Jr.", 2, "available"],
      ["two\nlines", 3, "pending"],
    ]);
  });

  it("adds the rows of a tab-separated file, also from stdin", async () => {
    const tsv = await file("sheet.tsv", "Name\tCategory_ID\tStatus\nKit, the cat\t4\tsold\n");
    const run = await add(["--from", tsv]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.added).toEqual([["Kit, the cat", 4, "sold"]]);
    const piped = await add(["--from", "-"], "name\tcategoryId\nZed;Z\t5\n");
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.added).toEqual([["Zed;Z", 5, "available"]]);
  });
});

describe("unknown columns", () => {
  const sheet = "name;categoryId;Colour;\r\nRex;1;red;\r\nTom;2;;x\r\n";

  it("stop the run naming each one and the flag, before anything is sent", async () => {
    const run = await add(["--from", await file("colour.csv", sheet)]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'line 1: the CSV header has unknown columns "Colour", an unnamed column (4); the columns are name, categoryId (or category_id) and status; --ignore-unknown-columns ignores them; nothing was sent',
    );
    expect(run.requests).toBe(0);
  });

  it("are ignored with --ignore-unknown-columns: the known ones are sent", async () => {
    const run = await add(["--from", await file("colour.csv", sheet), "--ignore-unknown-columns"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.added).toEqual([
      ["Rex", 1, "available"],
      ["Tom", 2, "available"],
    ]);
  });

  it("is a flag for CSV and for --from only", async () => {
    const ndjson = await file("pets.ndjson", '{"name":"A","categoryId":1}\n');
    const run = await add(["--from", ndjson, "--ignore-unknown-columns"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--ignore-unknown-columns applies to CSV;");
    const alone = await add(["--name", "A", "--category-id", "1", "--ignore-unknown-columns"]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("--ignore-unknown-columns only goes with --from");
    expect(run.requests + alone.requests).toBe(0);
  });
});

describe("what stops a run before anything is sent", () => {
  it("a row with fewer cells than the header, named by its line", async () => {
    const short = await file("short.csv", "name,categoryId,status\nRex,1,sold\nTom,2\n\nKit\n");
    const run = await add(["--from", short]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("row 2 (line 3): has 2 fields; the header has 3");
    expect(run.stderr).toContain("row 3 (line 5): has 1 field; the header has 3");
    expect(run.stderr).toContain("2 of 3 rows are invalid; nothing was sent");
    expect(run.requests).toBe(0);
  });

  it("an input with no rows, in every format", async () => {
    const inputs: Array<[string, string]> = [
      ["empty.csv", ""],
      ["bom.csv", BOM],
      ["header.csv", `${BOM}name;categoryId\r\n\r\n`],
      ["empty.json", "[ ]\n"],
      ["blank.ndjson", "\n\n"],
    ];
    for (const [name, content] of inputs) {
      const path = await file(name, content);
      const run = await add(["--from", path]);
      expect(run.code, name).toBe(2);
      expect(run.stderr).toBe(`error: ${path} has no rows; nothing was sent\n`);
    }
    const piped = await add(["--from", "-", "--format", "ndjson"], "");
    expect(piped.code).toBe(2);
    expect(piped.stderr).toBe("error: stdin has no rows; nothing was sent\n");
  });

  it("a byte that is not UTF-8, named by its line, also just past a read chunk", async () => {
    const latin1 = Buffer.from("name;categoryId\r\nRex;1\r\nB\xe9la;2\r\nTom;3\r\n", "latin1");
    const run = await add(["--from", await file("latin1.csv", latin1)]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "line 3: the input is not UTF-8 text (byte 0xE9); save it as UTF-8 and try again; nothing was sent",
    );
    let text = "name,categoryId\n";
    for (let i = 1; text.length < CHUNK_BYTES; i++) text += `pet-${i},1\n`;
    const line = text.split("\n").length;
    const bytes = Buffer.concat([Buffer.from(text), Buffer.from([0xff]), Buffer.from(",1\n")]);
    const late = await add(["--from", await file("late.csv", bytes)]);
    expect(late.code).toBe(2);
    expect(late.stderr).toContain(`line ${line}: the input is not UTF-8 text (byte 0xFF)`);
    expect(run.requests + late.requests).toBe(0);
  });
});

describe("a row nested 100,000 levels deep", () => {
  const deep = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);
  const deepArray = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

  it("is a row error naming the row, in NDJSON and in a JSON array; nothing is sent", async () => {
    const ndjson = await file(
      "deep.ndjson",
      `{"name":"Rex","categoryId":1}\n${deep(100_000)}\n${deepArray(100_000)}\n`,
    );
    const array = await file(
      "deep.json",
      `[{"name":"Rex","categoryId":1},\n${deep(100_000)},\n${deepArray(100_000)}]\n`,
    );
    for (const path of [ndjson, array]) {
      const run = await add(["--from", path]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(
        /row 2 \(line 2\): not valid JSON: Nesting deeper than 256 levels/,
      );
      expect(run.stderr).toMatch(
        /row 3 \(line 3\): not valid JSON: Nesting deeper than 256 levels/,
      );
      expect(run.stderr).toContain("2 of 3 rows are invalid; nothing was sent");
      expect(run.stderr).not.toContain("call stack");
      expect(run.requests).toBe(0);
    }
  });
});
