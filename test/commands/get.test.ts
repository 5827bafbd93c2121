import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { errorAnswer, jsonAnswer } from "./http-stubs.js";
import { cliForEachTest, NOW } from "./run-cli.js";

const DAY = 24 * 60 * 60 * 1000;

const PET = '{"id":42,"name":"Rex","categoryId":2,"status":"pending"}';

const cli = cliForEachTest();

describe("petstore get", () => {
  it("prints the pet and one deprecation warning on stderr, with the days left", async () => {
    cli.stubs.on("GET /pets/42", jsonAnswer(200, PET));
    const run = await cli.run(["get", "42"]);
    expect(run.code).toBe(0);
    expect(run.out).toBe("42\tRex\t2\tpending\n");
    // NOW is 5 November 2030; with no Sunset header the spec's 5 December 2030 applies.
    expect(run.err).toBe(
      "warning: `petstore get` stops working on 5 December 2030 (in 30 days); use\n" +
        "`petstore list --status <status>` to find pets (up to 100 per status).\n",
    );
  });

  it.each([80, 60, 40])(
    "fits the warning in two lines of %i columns at most, saying what to do",
    async (columns) => {
      cli.stubs.on("GET /pets/42", jsonAnswer(200, PET));
      const run = await cli.run(["get", "42"], { env: { COLUMNS: String(columns) } });
      const lines = run.err.trimEnd().split("\n");
      expect(lines.length).toBeLessThanOrEqual(columns >= 60 ? 2 : 3);
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(columns);
      expect(run.err).toMatch(/use\s+`petstore list/);
      expect(run.err).not.toContain("no replacement");
    },
  );

  it("names a successor elsewhere by its URL, never broken across lines", async () => {
    const successor = "https://api.example.test/v2/animals/lookup-by-identifier";
    cli.stubs.on(
      "GET /pets/42",
      jsonAnswer(200, PET, { link: `<${successor}>; rel="successor-version"` }),
    );
    const run = await cli.run(["get", "42"]);
    const lines = run.err.trimEnd().split("\n");
    expect(lines.length).toBeLessThanOrEqual(2);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines.some((line) => line.includes(successor))).toBe(true);
  });

  it("takes the removal date from the Sunset header; a successor that is the list is `petstore list`", async () => {
    cli.stubs.on(
      "GET /pets/42",
      jsonAnswer(200, PET, {
        sunset: "Sun, 10 Nov 2030 00:00:00 GMT",
        link: '</v1/pets>; rel="successor-version"',
      }),
    );
    const run = await cli.run(["get", "42", "--json"]);
    expect(run.out).toBe(PET + "\n");
    expect(run.err).toContain("stops working on 10 November 2030 (in 5 days)");
    expect(run.err).toContain("use\n`petstore list --status <status>` to find pets");
    expect(run.err.match(/warning:/g)).toHaveLength(1);
  });

  it("colours the warning label only when stderr gets colour", async () => {
    cli.stubs.on("GET /pets/42", jsonAnswer(200, PET), 2);
    const terminal = await cli.run(["get", "42"], { stderrTTY: true });
    expect(terminal.err.startsWith("\u001b[33mwarning:\u001b[39m ")).toBe(true);
    const forced = await cli.run(["get", "42"], {
      stdoutTTY: true,
      env: { FORCE_COLOR: "0" },
      now: NOW + DAY,
    });
    expect(forced.err).toMatch(/^warning: /);
  });

  it("is silenced by PETSTORE_NO_DEPRECATION_WARNING=1", async () => {
    cli.stubs.on("GET /pets/42", jsonAnswer(200, PET));
    const run = await cli.run(["get", "42"], { env: { PETSTORE_NO_DEPRECATION_WARNING: "1" } });
    expect(run.err).toBe("");
  });

  it("never warns on a 404, and a 404 does not use up the day's warning", async () => {
    cli.stubs.on("GET /pets/7", errorAnswer(404, "not_found", "no pet has the id 7"));
    const run = await cli.run(["get", "7"]);
    expect(run.code).toBe(4);
    expect(run.err).toBe("error: 404 Not Found: no pet has the id 7\n");
    cli.stubs.on("GET /pets/42", jsonAnswer(200, PET));
    const found = await cli.run(["get", "42"]);
    expect(found.err).toMatch(/^warning: /);
  });

  describe("at most once a day per profile", () => {
    const DAY_LATER = NOW + DAY;

    it("warns once, remembers it in the config directory, and warns again a day later", async () => {
      cli.stubs.on("GET /pets/42", jsonAnswer(200, PET), 4);
      const first = await cli.run(["get", "42"]);
      expect(first.err).toMatch(/^warning: /);
      const state = JSON.parse(readFileSync(join(cli.configDir, "state.json"), "utf8"));
      expect(state).toEqual({
        notices: { getDeprecation: { default: new Date(NOW).toISOString() } },
      });
      expect(statSync(join(cli.configDir, "state.json")).mode & 0o777).toBe(0o600);
      const again = await cli.run(["get", "42"], { now: DAY_LATER - 1 });
      expect(again.code).toBe(0);
      expect(again.out).toBe("42\tRex\t2\tpending\n");
      expect(again.err).toBe("");
      const nextDay = await cli.run(["get", "42"], { now: DAY_LATER });
      expect(nextDay.err).toMatch(/^warning: /);
      const sameDayAgain = await cli.run(["get", "42"], { now: DAY_LATER + 1000 });
      expect(sameDayAgain.err).toBe("");
    });

    it("counts each profile on its own", async () => {
      writeFileSync(
        join(cli.configDir, "config.json"),
        JSON.stringify({ currentProfile: "home", profiles: { home: {}, work: {} } }),
      );
      cli.stubs.on("GET /pets/42", jsonAnswer(200, PET), 4);
      const home = await cli.run(["get", "42"]);
      const work = await cli.run(["get", "42", "--profile", "work"]);
      const homeAgain = await cli.run(["get", "42", "-p", "home"]);
      const workAgain = await cli.run(["get", "42"], { env: { PETSTORE_PROFILE: "work" } });
      expect(
        [home, work, homeAgain, workAgain].map((run) => run.err.startsWith("warning:")),
      ).toEqual([true, true, false, false]);
    });

    it("warns again after a clock set back past the day it remembers", async () => {
      cli.stubs.on("GET /pets/42", jsonAnswer(200, PET), 2);
      await cli.run(["get", "42"], { now: DAY_LATER });
      const earlier = await cli.run(["get", "42"]);
      expect(earlier.err).toMatch(/^warning: /);
    });

    it.each([
      ["not JSON", (path: string) => writeFileSync(path, "{not json")],
      ["the wrong shape", (path: string) => writeFileSync(path, '{"notices":[1,2]}')],
      ["empty", (path: string) => writeFileSync(path, "")],
    ])("reads a state file that is %s as empty, and replaces it", async (_what, make) => {
      const path = join(cli.configDir, "state.json");
      make(path);
      cli.stubs.on("GET /pets/42", jsonAnswer(200, PET), 2);
      const run = await cli.run(["get", "42"]);
      expect(run.code).toBe(0);
      expect(run.err).toMatch(/^warning: /);
      expect(JSON.parse(readFileSync(path, "utf8")).notices.getDeprecation.default).toBeDefined();
      expect((await cli.run(["get", "42"])).err).toBe("");
    });

    it("never fails the command when the state cannot be written: it warns every time", async () => {
      const path = join(cli.configDir, "state.json");
      mkdirSync(path);
      writeFileSync(join(path, "keep"), "x");
      cli.stubs.on("GET /pets/42", jsonAnswer(200, PET), 2);
      const first = await cli.run(["get", "42"]);
      const second = await cli.run(["get", "42", "--verbose"]);
      for (const run of [first, second]) {
        expect(run.code).toBe(0);
        expect(run.out).toBe("42\tRex\t2\tpending\n");
        expect(run.err).toMatch(/^warning: |\nwarning: /);
      }
      expect(second.err).toMatch(
        /could not remember that the warning was shown \(E[A-Z]+\); it shows again\n$/,
      );
      expect(readFileSync(join(path, "keep"), "utf8")).toBe("x");
    });

    it("never follows a state file that is a symbolic link, nor writes through it", async () => {
      const target = join(cli.configDir, "elsewhere.json");
      const planted = JSON.stringify({
        notices: { getDeprecation: { default: new Date(NOW).toISOString() } },
      });
      writeFileSync(target, planted);
      symlinkSync(target, join(cli.configDir, "state.json"));
      cli.stubs.on("GET /pets/42", jsonAnswer(200, PET));
      const run = await cli.run(["get", "42"]);
      expect(run.err).toMatch(/^warning: /);
      expect(readFileSync(target, "utf8")).toBe(planted);
      expect(lstatSync(join(cli.configDir, "state.json")).isFile()).toBe(true);
    });

    it("does not block on a FIFO in place of the state file", async () => {
      const path = join(cli.configDir, "state.json");
      execFileSync("mkfifo", [path]);
      cli.stubs.on("GET /pets/42", jsonAnswer(200, PET));
      const run = await cli.run(["get", "42"]);
      expect(run.code).toBe(0);
      expect(run.err).toMatch(/^warning: /);
    });

    it("creates the config directory (0700) to remember it, when there is none yet", async () => {
      const dir = join(cli.configDir, "new", "petstore");
      cli.stubs.on("GET /pets/42", jsonAnswer(200, PET), 2);
      const env = { PETSTORE_CONFIG_DIR: dir };
      expect((await cli.run(["get", "42"], { env })).err).toMatch(/^warning: /);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect((await cli.run(["get", "42"], { env })).err).toBe("");
    });
  });

  it("accepts the largest int64 id and sends it digit for digit", async () => {
    const id = "9223372036854775807";
    cli.stubs.on(`GET /pets/${id}`, jsonAnswer(200, PET.replace("42", id)));
    const run = await cli.run(["get", id, "-q"]);
    expect(run.out).toBe(`${id}\n`);
  });

  it.each([
    ["abc", `A pet's id is a whole number, like 42, not "abc"`],
    ["1.5", `A pet's id is a whole number, like 42, not "1.5"`],
    ["", `A pet's id is a whole number, like 42, not ""`],
    ["9223372036854775808", "A pet's id is at most 9223372036854775807, not 9223372036854775808"],
    [
      "-9223372036854775809",
      "A pet's id is at least -9223372036854775808, not -9223372036854775809",
    ],
    ["007", "A pet's id is written without leading zeros, like 42, not 007"],
  ])("rejects the id %j with exit 2 before sending, in a person's words", async (id, message) => {
    const run = await cli.run(["get", "--", id]);
    expect(run.code).toBe(2);
    expect(run.err).toBe(`error: ${message}\n`);
    expect(run.err).not.toMatch(/int64|integer|JSON|string|got /);
    expect(cli.stubs.requests).toHaveLength(0);
  });
});
