/**
 * `--jq` for real: the packed npm package's CLI against a `petstore serve` process.
 * What it prints is compared byte for byte with Debian's `jq -r` (jq 1.6, the
 * reference on this machine) given what `--json` prints, for filters on which jq
 * 1.6 and the built-in jq agree. jq 1.6 rounds integers past 2^53, so int64 values
 * are checked on their own, against the literal expected.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servePetsFile } from "./harness.js";

const DEBIAN_JQ = "/usr/bin/jq";
const INT64_MAX = "9223372036854775807";
const INT64_MIN = "-9223372036854775808";

/** Pets 1 to 12 hold only what jq 1.6 reads exactly; 13 and 14 hold the int64 edges. */
const PETS = [
  { id: 1, name: "Rex", categoryId: 1, status: "available" },
  { id: 2, name: "Tom & Jerry", categoryId: 2, status: "pending" },
  { id: 3, name: "O'Malley", categoryId: 3, status: "sold" },
  { id: 4, name: 'Say "hi"', categoryId: 1, status: "available" },
  { id: 5, name: "comma, name", categoryId: -5, status: "available" },
  { id: 6, name: "tab\there", categoryId: 2, status: "sold" },
  { id: 7, name: "Ünïcödé 🐕", categoryId: 9007199254740991, status: "pending" },
  { id: 8, name: "  Spacey  ", categoryId: 4 },
  { id: 9, name: "Rocky", categoryId: 0, status: "available" },
  { id: 10, name: "back\\slash", categoryId: 3, status: "pending" },
  { id: 11, name: "Ruby", categoryId: 5, status: "sold" },
  { id: 12, name: "Last, no status ", categoryId: 6 },
];
const ORDINARY = PETS.length;

/** Selection, map, select, length, @csv, @tsv, interpolation and more: jq 1.6 and 1.8 agree on each. */
const FILTERS = [
  ".",
  ".[].name",
  ".[0]",
  ".[2:4]",
  "length",
  "map(.name)",
  '.[] | select(.status == "available") | .name',
  "[.[] | select(.categoryId > 2)] | length",
  ".[] | [.id, .name, .status] | @csv",
  ".[] | [.id, .name, .categoryId, .status] | @tsv",
  '.[] | "\\(.id): \\(.name) is \\(.status // "unknown")"',
  "map({(.name): .id}) | add",
  "group_by(.status) | map({status: .[0].status, count: length})",
  "sort_by(.name) | map(.name)",
  "map(.categoryId) | add",
  '.[] | .name | select(test("^R")) | ascii_upcase',
  "map(.name | length) | max",
  '[.[].status] | unique | join(",")',
  ".[] | .name | @json",
  ".[] | .name | @sh",
  ".[] | .name | @base64",
  '"  " + .[0].name + "  "',
  ".[-1] | keys",
  "map(select(.status == null) | .id)",
  "any(.[]; .categoryId < 0), all(.[]; .id > 0)",
  ".[] | .nope",
  "empty",
  "{count: length, first: .[0].name, last: .[-1].name}",
];

let fake: Awaited<ReturnType<typeof servePetsFile>>;

beforeAll(async () => {
  fake = await servePetsFile([
    ...PETS.map((pet) => JSON.stringify(pet)),
    `{"id":13,"name":"Max","categoryId":${INT64_MAX},"status":"available"}`,
    `{"id":14,"name":"Min","categoryId":${INT64_MIN},"status":"sold"}`,
  ]);
});

afterAll(() => fake?.stop());

function debianJq(filter: string, input: string) {
  return spawnSync(DEBIAN_JQ, ["-r", filter], { input, encoding: "utf8" });
}

/** The id of the last request the fake answered, from its control plane's journal. */
async function lastRequest(): Promise<number | null> {
  const answer = await fetch(fake.url.replace(/\/v1$/, "/__admin/requests?limit=1"));
  return ((await answer.json()) as { lastId: number | null }).lastId;
}

describe("--jq prints what `jq -r` prints", () => {
  it("is compared with Debian's jq 1.6", () => {
    expect(spawnSync(DEBIAN_JQ, ["--version"], { encoding: "utf8" }).stdout).toBe("jq-1.6\n");
  });

  it("for each filter, given the JSON `list --json` prints", () => {
    const json = fake.cli(["list", "--limit", String(ORDINARY), "--json"]);
    expect(json.status, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(PETS);
    for (const filter of FILTERS) {
      const expected = debianJq(filter, json.stdout);
      expect(expected.status, `${filter}: ${expected.stderr}`).toBe(0);
      const run = fake.cli(["list", "--limit", String(ORDINARY), "--jq", filter]);
      expect({ filter, stderr: run.stderr, status: run.status }).toEqual({
        filter,
        stderr: "",
        status: 0,
      });
      expect(run.stdout, filter).toBe(expected.stdout);
    }
  });

  it("for get, profile show and auth status, whose JSON is one object", () => {
    for (const [args, filter] of [
      [["get", "2"], '"\\(.name) (\\(.status))"'],
      [["profile", "show"], ".sources | to_entries[] | [.key, .value] | @tsv"],
      [["auth", "status"], "[.key, .rateLimit.limit] | @csv"],
    ] as const) {
      const json = fake.cli([...args, "--json"]);
      const run = fake.cli([...args, "--jq", filter]);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toBe(debianJq(filter, json.stdout).stdout);
      expect(run.stdout).not.toBe("");
    }
  });
});

describe("--jq and int64", () => {
  it("keeps the categories at the int64 edges exact, as values and inside arrays and objects", () => {
    const run = fake.cli([
      "list",
      "--jq",
      '.[] | select(.id > 12) | .categoryId, [.categoryId], {name, categoryId}, "\\(.categoryId)"',
    ]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      `${INT64_MAX}\n[\n  ${INT64_MAX}\n]\n{\n  "name": "Max",\n  "categoryId": ${INT64_MAX}\n}\n${INT64_MAX}\n` +
        `${INT64_MIN}\n[\n  ${INT64_MIN}\n]\n{\n  "name": "Min",\n  "categoryId": ${INT64_MIN}\n}\n${INT64_MIN}\n`,
    );
  });

  it("for a pet just added, whose answer is filtered", () => {
    const run = fake.cli([
      "add",
      "--name",
      "Huge",
      "--category-id",
      INT64_MAX,
      "--jq",
      ".categoryId",
    ]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${INT64_MAX}\n`);
  });
});

describe("add --from --json --jq", () => {
  it("filters each row's outcome line, as jq does a stream of JSON texts", () => {
    const rows = join(fake.dir, "rows.ndjson");
    writeFileSync(
      rows,
      `{"name":"A","categoryId":1}\n{"name":"","categoryId":1}\n{"name":"C","categoryId":${INT64_MAX}}\n`,
    );
    const run = fake.cli([
      "add",
      "--from",
      rows,
      "--skip-invalid",
      "--concurrency",
      "1",
      "--jq",
      '"\\(.row) \\(.outcome)"',
    ]);
    // The invalid row makes it exit 2, after the others are added.
    expect(run.status, run.stderr).toBe(2);
    expect(run.stdout.split("\n").sort()).toEqual(["", "1 added", "2 invalid", "3 added"]);
  });
});

describe("add --from --jq, a filter that reads or stops its input stream", () => {
  it("gets each row's line alone, as a separate run of jq would", () => {
    const rows = join(fake.dir, "rows-halt.ndjson");
    writeFileSync(
      rows,
      ["G", "H", "I"].map((name) => `{"name":"${name}","categoryId":1}\n`).join(""),
    );
    const run = fake.cli([
      ...["add", "--from", rows, "--concurrency", "1"],
      ...["--jq", "if .row == 1 then halt else .row end"],
    ]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe("2\n3\n");
  });
});

describe("a filter that does not compile", () => {
  it("is a usage error (exit 2) with jq's own message, and nothing is sent", async () => {
    const before = await lastRequest();
    for (const args of [["list"], ["auth", "status"], ["add", "--name", "Never", "-c", "1"]]) {
      const run = fake.cli([...args, "--jq", ".[] | map("]);
      expect(run.status).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(
        "error: the --jq filter does not compile:\njq: error: syntax error",
      );
      expect(run.stderr).toContain("jq: 1 compile error");
    }
    expect(await lastRequest()).toBe(before);
  });
});

describe("a filter that fails on the data", () => {
  it("prints what it printed before the error, then jq's error, and exits 1", () => {
    const run = fake.cli([
      "list",
      "--jq",
      '.[] | .name, (.name | select(. == "Tom & Jerry") | tonumber)',
    ]);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("Rex\nTom & Jerry\n");
    expect(run.stderr).toMatch(
      /^error: the --jq filter failed: jq: error \(at .*\): .*"Tom & Jerry".* cannot be parsed as a number\n$/,
    );
  });

  it("in add --from, prints the lines before the failing one and none after it", () => {
    const rows = join(fake.dir, "rows-failing.ndjson");
    writeFileSync(
      rows,
      ["D", "E", "F"].map((name) => `{"name":"${name}","categoryId":1}\n`).join(""),
    );
    const run = fake.cli([
      ...["add", "--from", rows, "--concurrency", "1"],
      ...["--jq", 'if .row == 2 then error("row two") else .row end'],
    ]);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stdout).toBe("1\n");
    expect(run.stderr).toContain("row two");
  });

  it("after add, says the pet was added and which it is", () => {
    const run = fake.cli(["add", "--name", "Added anyway", "-c", "1", "--jq", ".name | tonumber"]);
    expect(run.status).toBe(1);
    const id = /pet (\d+) was added, but the --jq filter failed: jq: error/.exec(run.stderr)?.[1];
    expect(id, run.stderr).toBeDefined();
    expect(run.stderr).toContain(`hint: it is pet ${id}; do not add it again`);
    expect(fake.cli(["get", id!, "--jq", ".name"]).stdout).toBe("Added anyway\n");
  });
});

describe("--jq with other output flags", () => {
  it("implies --json, goes with it, and conflicts with -q and other formats", () => {
    expect(fake.cli(["list", "--json", "--jq", ".[0].id"]).stdout).toBe("1\n");
    expect(fake.cli(["list", "-o", "json", "--jq", ".[0].id"]).stdout).toBe("1\n");
    for (const [flags, named] of [
      [["-q"], "-q/--quiet"],
      [["-o", "csv"], "--output csv"],
    ] as const) {
      const run = fake.cli(["list", ...flags, "--jq", "."]);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(`--jq filters the JSON output; it conflicts with ${named}`);
    }
  });
});
