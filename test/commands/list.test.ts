import { describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { timeoutError } from "../../src/client/network-errors.js";
import { createTestIO } from "../test-io.js";
import { cliForEachTest, NOW } from "./run-cli.js";
import { jsonAnswer } from "./http-stubs.js";

const BIG_ID = "9223372036854775807";
const PAGE = `[{"id":1,"name":"Rex","categoryId":2,"status":"available"},{"id":${BIG_ID},"name":"Tom\\tthe cat","categoryId":3,"status":"sold"}]`;

const ESC = String.fromCharCode(27);
const stripAnsi = (text: string) => text.replace(new RegExp(`${ESC}\\[[0-9;]*m`, "g"), "");

const cli = cliForEachTest();

describe("petstore list", () => {
  it("prints tab-separated rows without colour when stdout is not a TTY", async () => {
    cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, PAGE));
    const run = await cli.run(["list"], { env: { FORCE_COLOR: undefined } });
    expect(run.code).toBe(0);
    expect(run.out).toBe(`1\tRex\t2\tavailable\n${BIG_ID}\tTom\\tthe cat\t3\tsold\n`);
    expect(run.err).toBe("");
  });

  it("prints an aligned table with a header and coloured status on a terminal", async () => {
    cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, PAGE));
    const run = await cli.run(["list"], { stdoutTTY: true, columns: 120 });
    expect(run.code).toBe(0);
    const lines = run.out.split("\n");
    expect(lines[0]).toContain("\u001b[1mID\u001b[22m");
    expect(lines[1]).toContain("\u001b[32mavailable\u001b[39m");
    expect(lines[2]).toContain(BIG_ID);
    // The tab in the name is shown as an escape, not sent to the terminal.
    expect(lines[2]).toContain("Tom\\tthe cat");
  });

  it("leaves the table uncoloured on a terminal when NO_COLOR or --no-color says so", async () => {
    cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, PAGE), 2);
    const noColorEnv = await cli.run(["list"], { stdoutTTY: true, env: { NO_COLOR: "1" } });
    const noColorFlag = await cli.run(["list", "--no-color"], { stdoutTTY: true });
    for (const run of [noColorEnv, noColorFlag]) {
      expect(run.out).not.toContain("\u001b[");
      expect(run.out.split("\n")[0]).toMatch(/^ID +NAME +CATEGORY +STATUS$/);
    }
  });

  it("shortens long names with an ellipsis to fit the terminal, but never when piped", async () => {
    const long = "A".repeat(200);
    const page = `[{"id":1,"name":"${long}","categoryId":2,"status":"pending"}]`;
    cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, page), 2);
    const terminal = await cli.run(["list"], { stdoutTTY: true, columns: 60 });
    for (const line of terminal.out.trimEnd().split("\n")) {
      expect(stripAnsi(line).length).toBeLessThanOrEqual(60);
    }
    expect(terminal.out).toContain("…");
    const piped = await cli.run(["list"]);
    expect(piped.out).toBe(`1\t${long}\t2\tpending\n`);
  });

  it("passes the service's JSON through exactly, int64 ids included", async () => {
    cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, PAGE));
    const run = await cli.run(["list", "--json"]);
    expect(run.out).toBe(PAGE + "\n");
  });

  it("indents JSON for a terminal without changing a value", async () => {
    cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, PAGE));
    const run = await cli.run(["list", "-o", "json"], { stdoutTTY: true });
    expect(run.out).toContain(`"id": ${BIG_ID}`);
    expect(JSON.parse(run.out.replace(BIG_ID, '"big"'))).toHaveLength(2);
  });

  it("writes ndjson, csv and ids", async () => {
    cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, PAGE), 3);
    const ndjson = await cli.run(["list", "--output=ndjson"]);
    expect(ndjson.out).toBe(
      `{"id":1,"name":"Rex","categoryId":2,"status":"available"}\n{"id":${BIG_ID},"name":"Tom\\tthe cat","categoryId":3,"status":"sold"}\n`,
    );
    const csv = await cli.run(["list", "-ocsv"]);
    expect(csv.out).toBe(
      `id,name,categoryId,status\r\n1,Rex,2,available\r\n${BIG_ID},Tom\tthe cat,3,sold\r\n`,
    );
    const ids = await cli.run(["list", "-q"]);
    expect(ids.out).toBe(`1\n${BIG_ID}\n`);
  });

  it("sends --status and --limit as query parameters", async () => {
    cli.stubs.on("GET /pets?limit=100&status=pending", jsonAnswer(200, "[]"));
    const run = await cli.run(["list", "--status", "pending", "--limit", "100"]);
    expect(run.code).toBe(0);
    expect(run.out).toBe("");
  });

  it("says on stderr that nothing matched when the table would be empty", async () => {
    cli.stubs.on("GET /pets?limit=20&status=sold", jsonAnswer(200, "[]"));
    const run = await cli.run(["list", "--status", "sold"], { stdoutTTY: true });
    expect(run.out).toBe("");
    expect(run.err).toBe("no pets match\n");
  });

  describe("a page that may not be all", () => {
    const page = (n: number) =>
      JSON.stringify(
        Array.from({ length: n }, (_, i) => ({
          id: i + 1,
          name: `Pet ${i + 1}`,
          categoryId: 1,
          status: "available",
        })),
      );

    it("says on a terminal that a full page of 20 shows only the first, and how to see more", async () => {
      cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, page(20)));
      const run = await cli.run(["list"], { stderrTTY: true });
      expect(run.code).toBe(0);
      expect(run.out.split("\n")).toHaveLength(21);
      expect(run.err).toBe("showing the first 20 pets; `--limit 100` shows up to 100\n");
    });

    it("says at 100 that more may exist and cannot be listed, whatever the output format", async () => {
      cli.stubs.on("GET /pets?limit=100", jsonAnswer(200, page(100)));
      cli.stubs.on("GET /pets?limit=100&status=available", jsonAnswer(200, page(100)));
      const all = await cli.run(["list", "-L", "100", "--json"], { stderrTTY: true });
      expect(all.err).toBe(
        "showing the first 100 pets; more may exist, and the service has no paging to list them; `--status` narrows the list\n",
      );
      expect(JSON.parse(all.out)).toHaveLength(100);
      const available = await cli.run(["list", "-L", "100", "-s", "available", "-q"], {
        stderrTTY: true,
      });
      expect(available.err).toBe(
        "showing the first 100 pets; more may exist, and the service has no paging to list them\n",
      );
    });

    it("says nothing when the page is not full", async () => {
      cli.stubs.on("GET /pets?limit=5", jsonAnswer(200, page(4)));
      const run = await cli.run(["list", "-L", "5"], { stderrTTY: true });
      expect(run.err).toBe("");
    });

    it("says nothing when stderr is not a terminal (scripts, CI logs)", async () => {
      cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, page(20)));
      const run = await cli.run(["list"], { stdoutTTY: true, stderrTTY: false });
      expect(run.err).toBe("");
    });
  });

  it.each([
    [["--limit", "0"], /--limit must be an integer from 1 to 100/],
    [["--limit", "101"], /--limit must be an integer from 1 to 100/],
    [["--limit", "ten"], /--limit must be an integer from 1 to 100; got "ten"/],
    [["--status", "adopted"], /--status must be one of available, pending, sold; got "adopted"/],
    [["--output", "xml"], /--output must be one of table, tsv, csv, json, ndjson; got "xml"/],
    [["--json", "-o", "csv"], /--json means --output json; it conflicts with --output csv/],
    [["-q", "--json"], /-q\/--quiet prints ids only; it conflicts with --output json/],
    [["--timeout", "0"], /--timeout must be a number of seconds above 0/],
    [["--max-retries", "-1"], /--max-retries must be an integer from 0 to 20/],
    [["--no-retry", "--max-retries", "2"], /--no-retry conflicts with --max-retries/],
    [["--env", "moon"], /--env must be one of production, staging; got "moon"/],
  ])("rejects %j with exit 2 and sends nothing", async (flags, message) => {
    const run = await cli.run(["list", ...flags]);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(message);
    expect(run.out).toBe("");
    expect(cli.stubs.requests).toHaveLength(0);
  });
});

describe("petstore list against a service that never answers", () => {
  it("gives up after 60 s in all, attempts and waits together, as the README says", async () => {
    let clock = NOW;
    const timeouts: number[] = [];
    const io = createTestIO();
    const code = await main(["list"], {
      io,
      env: { ...cli.env },
      // Each attempt ends at its timeout, as node:http's does against a silent service.
      transport: async (request) => {
        timeouts.push(request.timeoutMs);
        clock += request.timeoutMs;
        throw timeoutError(
          { method: request.method, url: request.url },
          new URL(request.url),
          request.timeoutMs,
          true,
        );
      },
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
      },
      random: () => 0.5,
    });
    expect(code).toBe(6);
    expect(clock - NOW).toBeLessThanOrEqual(60_000);
    expect(timeouts).toEqual([15_000, 15_000, 15_000, 9_700]);
    expect(io.err()).toMatch(/no complete answer from 127\.0\.0\.1:9 within 9\.7 s/);
  });
});
