/**
 * Every command's --help fits the width it is given (COLUMNS, the terminal's,
 * else 80), for every command of the tree, walked so a new command is covered:
 * no line longer than 80 or 60 columns, no word cut to get there, and at 40
 * columns the option descriptions still wrapped. One real terminal (tmux) checks
 * that the terminal's own width is read when COLUMNS is not set.
 */
import { execFileSync } from "node:child_process";
import type { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFactory } from "../../src/commands/factory.js";
import { buildProgram } from "../../src/commands/program.js";
import { createTestIO } from "../test-io.js";
import { cliContext, type CliContext } from "../commands/run-cli.js";
import { shellQuote, stopTmux, TerminalSession } from "../e2e/tmux.js";
import { BIN, ensureBuilt } from "../server/cli-build.js";

/** Every command path of the tree, the root (`[]`) and hidden ones included. */
function commandPaths(command: Command, path: string[] = []): string[][] {
  return [
    path,
    ...command.commands.flatMap((child) => commandPaths(child, [...path, child.name()])),
  ];
}

const PATHS = commandPaths(buildProgram(createFactory({ io: createTestIO(), env: {} }))).map(
  (path) => [path.join(" ") || "(petstore)", path] as const,
);

/** The words of a help text, with the ` \` of continued command lines left out. */
const words = (text: string) => text.split(/\s+/).filter((word) => word !== "" && word !== "\\");

/** Lines under the headings that list options, arguments and commands. */
function listedLines(help: string): string[] {
  const lines: string[] = [];
  let listing = false;
  for (const line of help.split("\n")) {
    if (/^\S.*:$/.test(line)) listing = /^(Options|Global Options|Arguments|Commands):$/.test(line);
    else if (listing && line !== "") lines.push(line);
  }
  return lines;
}

let cli: CliContext;
beforeAll(() => {
  cli = cliContext();
});
afterAll(() => cli.cleanup());

async function helpAt(path: readonly string[], columns: number): Promise<string> {
  const run = await cli.run([...path, "--help"], { env: { COLUMNS: String(columns) } });
  expect(run.code).toBe(0);
  expect(run.err).toBe("");
  return run.out;
}

describe("--help at every width", () => {
  it.each(PATHS)("%s fits 80 and 60 columns, cutting no word", async (_, path) => {
    const unwrapped = words(await helpAt(path, 1000));
    for (const columns of [80, 60]) {
      const help = await helpAt(path, columns);
      const long = help.split("\n").filter((line) => line.length > columns);
      expect(long, `at ${columns} columns`).toEqual([]);
      expect(words(help)).toEqual(unwrapped);
    }
  });

  it.each(PATHS)("%s wraps its option descriptions at 40 columns", async (_, path) => {
    const help = await helpAt(path, 40);
    const listed = listedLines(help);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.filter((line) => line.length > 40)).toEqual([]);
  });

  it("reads COLUMNS in a real process with stdout piped", async () => {
    // The walk above found the commands a person types, not an empty tree.
    expect(PATHS.map(([name]) => name)).toEqual(
      expect.arrayContaining(["(petstore)", "list", "add", "get", "auth login", "serve"]),
    );
    await ensureBuilt();
    const help = execFileSync(process.execPath, [BIN, "serve", "--help"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH, COLUMNS: "60" },
    });
    expect(Math.max(...help.split("\n").map((line) => line.length))).toBeLessThanOrEqual(60);
    const piped = execFileSync(process.execPath, [BIN, "serve", "--help"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH },
    });
    const widest = Math.max(...piped.split("\n").map((line) => line.length));
    expect(widest).toBeLessThanOrEqual(80);
    expect(widest).toBeGreaterThan(60);
  });
});

describe("--help on a real terminal", () => {
  afterAll(stopTmux);

  it("wraps to the terminal's width when COLUMNS is not set", async () => {
    await ensureBuilt();
    const env = `env -i PATH=${shellQuote(process.env.PATH ?? "/usr/bin:/bin")} TERM=xterm`;
    const command = `${env} ${shellQuote(process.execPath)} ${shellQuote(BIN)} list --help`;
    const term = await TerminalSession.start(command, { columns: 50, rows: 20 });
    try {
      expect((await term.exit()).code).toBe(0);
      const written = (await term.screen(false, true)).split("\n");
      expect(written.some((line) => line.includes("--max-retries"))).toBe(true);
      expect(written.filter((line) => line.trimEnd().length > 50)).toEqual([]);
    } finally {
      await term.kill();
    }
  });
});
