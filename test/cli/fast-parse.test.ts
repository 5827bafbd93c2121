/**
 * The fast parser answers list/get/add without commander; whenever it answers,
 * it must read the command line exactly as commander does.
 */
import type { Command } from "commander";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fastParse, type ParsedCommand } from "../../src/commands/fast-parse.js";
import { buildProgram } from "../../src/commands/program.js";
import { GLOBAL_OPTIONS, HOT_COMMANDS } from "../../src/commands/spec.js";
import { createFactory } from "../../src/commands/factory.js";
import { createTestIO } from "../../src/io/test-io.js";

class Parsed extends Error {
  constructor(readonly result: ParsedCommand) {
    super("parsed");
  }
}

/** What commander makes of a command line: the action's command, arguments and options. */
async function commanderParse(argv: string[]): Promise<ParsedCommand | "error"> {
  const io = createTestIO();
  const program = buildProgram(createFactory({ io, env: {} }));
  program.hook("preAction", (_root: Command, action: Command) => {
    throw new Parsed({
      name: action.name(),
      args: action.processedArgs.filter((arg): arg is string => typeof arg === "string"),
      options: action.optsWithGlobals(),
    });
  });
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof Parsed) return error.result;
    return "error";
  }
  return "error";
}

const parse = (argv: string[]) => fastParse(argv, HOT_COMMANDS, GLOBAL_OPTIONS);

describe("the fast parser", () => {
  it.each([
    [["list"]],
    [["list", "--json"]],
    [["list", "--status", "sold", "--limit=5", "-o", "csv"]],
    [["list", "-otsv", "--no-retry", "--verbose", "--no-color"]],
    [["--no-color", "list", "--debug", "-q"]],
    [["list", "--status", "a", "--status", "b"]],
    [
      [
        "list",
        "--profile",
        "ci",
        "--env",
        "staging",
        "--base-url",
        "http://x/v1",
        "--allow-insecure",
      ],
    ],
    [["list", "--timeout", "2.5", "--max-retries", "0"]],
    [["get", "42"]],
    [["get", "--json", "42"]],
    [["get", "--", "-5"]],
    [["add", "--name", "Rex", "--category-id", "1", "--status", "sold", "-q"]],
    [["add", "--name", "--json", "--category-id=-1"]],
    [["add", "--file", "-"]],
    [["list", "-s", "available", "-L", "100", "-p", "work"]],
    [["list", "-Lsold"]],
    [["add", "-n", "Rex", "-c", "3", "-s", "pending", "-p", "ci", "-q"]],
    [["add", "--no-prompt", "-n", "Rex"]],
    [["get", "-p", "ci", "7"]],
    [["add", "--name="]],
  ])("reads %j as commander does", async (argv) => {
    const fast = parse(argv);
    expect(fast).toBeDefined();
    expect(fast).toEqual(await commanderParse(argv));
  });

  it.each([
    [["--version"]],
    [["list", "--help"]],
    [["list", "-h"]],
    [["list", "--bogus"]],
    [["list", "--status"]],
    [["list", "-qo", "json"]],
    [["list", "--json=yes"]],
    [["list", "extra"]],
    [["get"]],
    [["get", "1", "2"]],
    [["get", "-5"]],
    [["auth", "status"]],
    [["serve"]],
    [[]],
  ])("leaves %j to commander", (argv) => {
    expect(parse(argv)).toBeUndefined();
  });

  it("never disagrees with commander on generated command lines", async () => {
    const token = fc.constantFrom(
      "list",
      "get",
      "add",
      "42",
      "-",
      "--",
      "--json",
      "-q",
      "-o",
      "-ojson",
      "--output=csv",
      "--status",
      "--limit",
      "--name",
      "--category-id",
      "--file",
      "--no-retry",
      "--no-color",
      "--debug",
      "--verbose",
      "--timeout",
      "--help",
      "--bogus",
      "sold",
    );
    let answered = 0;
    const commandLine = fc
      .tuple(fc.constantFrom("list", "get", "add"), fc.array(token, { maxLength: 6 }))
      .map(([command, rest]) => [command, ...rest]);
    await fc.assert(
      fc.asyncProperty(commandLine, async (argv) => {
        const fast = parse(argv);
        if (fast === undefined) return;
        answered++;
        expect(fast).toEqual(await commanderParse(argv));
      }),
      { numRuns: 300 },
    );
    // The property means something only if the fast parser answered often enough.
    expect(answered).toBeGreaterThan(30);
  });
});
