/**
 * Every command line is read by the commander program (src/commands/program.ts):
 * for each command, a table of command lines and the arguments and flags its
 * action receives, and the command lines commander refuses, with its error code.
 */
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { createFactory } from "../../src/commands/factory.js";
import { buildProgram } from "../../src/commands/program.js";
import { createTestIO } from "../test-io.js";
import {
  DEFAULT_FILE,
  DEFAULT_HOST,
  DEFAULT_JOURNAL_SIZE,
  DEFAULT_PORT,
} from "../../src/server/serve-defaults.js";

interface Parsed {
  command: string;
  args: string[];
  flags: Record<string, unknown>;
}

class Stop extends Error {
  constructor(readonly parsed: Parsed) {
    super("parsed");
  }
}

/** The command an action would run, with what it would be given; or commander's error code. */
async function parse(argv: string[]): Promise<Parsed | string> {
  const io = createTestIO();
  const program = buildProgram(createFactory({ io, env: {} }), argv);
  program.hook("preAction", (_root: Command, action: Command) => {
    const path: string[] = [];
    for (let command: Command | null = action; command?.parent; command = command.parent) {
      path.unshift(command.name());
    }
    const args = action.processedArgs
      .flat()
      .filter((arg): arg is string => typeof arg === "string");
    throw new Stop({ command: path.join(" "), args, flags: action.opts() });
  });
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof Stop) return error.parsed;
    return (error as { code?: string }).code ?? String(error);
  }
  return "no action";
}

/** Flags every request command has unless given: `--no-retry` not given. */
const REQUEST = { retry: true };
const ADD = { ...REQUEST, prompt: true };

const SERVE_DEFAULTS = {
  file: DEFAULT_FILE,
  port: String(DEFAULT_PORT),
  host: DEFAULT_HOST,
  banAfter: "10",
  banSeconds: "600",
  journalSize: String(DEFAULT_JOURNAL_SIZE),
};

const TABLE: [string[], Parsed][] = [
  [["list"], { command: "list", args: [], flags: REQUEST }],
  [["list", "--json"], { command: "list", args: [], flags: { ...REQUEST, json: true } }],
  [
    ["list", "-qo", "json"],
    { command: "list", args: [], flags: { ...REQUEST, quiet: true, output: "json" } },
  ],
  [
    ["list", "--status", "sold", "--limit=5", "-o", "csv"],
    { command: "list", args: [], flags: { ...REQUEST, status: "sold", limit: "5", output: "csv" } },
  ],
  [
    ["list", "-otsv", "--no-retry", "--verbose", "--no-color"],
    { command: "list", args: [], flags: { retry: false, output: "tsv", verbose: true } },
  ],
  [
    ["--no-color", "list", "--debug", "-q"],
    { command: "list", args: [], flags: { ...REQUEST, quiet: true } },
  ],
  [
    ["list", "--status", "a", "--status", "b"],
    { command: "list", args: [], flags: { ...REQUEST, status: "b" } },
  ],
  [
    ["list", "-s", "available", "-L", "100", "-p", "work", "-Lsold"],
    {
      command: "list",
      args: [],
      flags: { ...REQUEST, status: "available", limit: "sold", profile: "work" },
    },
  ],
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
      "--timeout",
      "2.5",
      "--max-retries",
      "0",
    ],
    {
      command: "list",
      args: [],
      flags: {
        ...REQUEST,
        profile: "ci",
        env: "staging",
        baseUrl: "http://x/v1",
        allowInsecure: true,
        timeout: "2.5",
        maxRetries: "0",
      },
    },
  ],
  [["get", "42"], { command: "get", args: ["42"], flags: REQUEST }],
  [["get", "--json", "42"], { command: "get", args: ["42"], flags: { ...REQUEST, json: true } }],
  [["get", "--", "-5"], { command: "get", args: ["-5"], flags: REQUEST }],
  [["get", "-5"], { command: "get", args: ["-5"], flags: REQUEST }],
  [["get", "-p", "ci", "7"], { command: "get", args: ["7"], flags: { ...REQUEST, profile: "ci" } }],
  [
    ["add", "--name", "Rex", "--category-id", "1", "--status", "sold", "-q"],
    {
      command: "add",
      args: [],
      flags: { ...ADD, name: "Rex", categoryId: "1", status: "sold", quiet: true },
    },
  ],
  [
    ["add", "-n", "Rex", "-c", "3", "-s", "pending", "-p", "ci"],
    {
      command: "add",
      args: [],
      flags: { ...ADD, name: "Rex", categoryId: "3", status: "pending", profile: "ci" },
    },
  ],
  [
    ["add", "--name", "--json", "--category-id=-1"],
    { command: "add", args: [], flags: { ...ADD, name: "--json", categoryId: "-1" } },
  ],
  [["add", "--name="], { command: "add", args: [], flags: { ...ADD, name: "" } }],
  [["add", "--file", "-"], { command: "add", args: [], flags: { ...ADD, file: "-" } }],
  [
    ["add", "--no-prompt", "-n", "Rex"],
    { command: "add", args: [], flags: { ...ADD, prompt: false, name: "Rex" } },
  ],
  [
    [
      "add",
      "--from",
      "pets.csv",
      "--format",
      "csv",
      "--skip-invalid",
      "--ignore-unknown-columns",
      "--results",
      "r.results",
      "--resume",
      "old.results",
      "--retry-unknown",
      "--concurrency",
      "4",
      "--json",
    ],
    {
      command: "add",
      args: [],
      flags: {
        ...ADD,
        from: "pets.csv",
        format: "csv",
        skipInvalid: true,
        ignoreUnknownColumns: true,
        results: "r.results",
        resume: "old.results",
        retryUnknown: true,
        concurrency: "4",
        json: true,
      },
    },
  ],
  [
    [
      "auth",
      "login",
      "-p",
      "ci",
      "--env",
      "staging",
      "--base-url",
      "http://x/v1",
      "--with-token",
      "--api-key-file",
      "key.txt",
      "--no-verify",
    ],
    {
      command: "auth login",
      args: [],
      flags: {
        profile: "ci",
        env: "staging",
        baseUrl: "http://x/v1",
        withToken: true,
        apiKeyFile: "key.txt",
        verify: false,
      },
    },
  ],
  [["auth", "login"], { command: "auth login", args: [], flags: { verify: true } }],
  [
    ["auth", "status", "--json", "--profile", "ci", "--timeout", "3"],
    {
      command: "auth status",
      args: [],
      flags: { ...REQUEST, json: true, profile: "ci", timeout: "3" },
    },
  ],
  [["auth", "logout", "-p", "ci"], { command: "auth logout", args: [], flags: { profile: "ci" } }],
  [
    ["profile", "list", "-o", "csv"],
    { command: "profile list", args: [], flags: { output: "csv" } },
  ],
  [["profile", "list", "--json"], { command: "profile list", args: [], flags: { json: true } }],
  [["profile", "use", "ci"], { command: "profile use", args: ["ci"], flags: {} }],
  [["profile", "show"], { command: "profile show", args: [], flags: {} }],
  [
    ["profile", "show", "ci", "--env", "staging", "--base-url", "http://x/v1", "--json"],
    {
      command: "profile show",
      args: ["ci"],
      flags: { env: "staging", baseUrl: "http://x/v1", json: true },
    },
  ],
  [["profile", "remove", "old"], { command: "profile remove", args: ["old"], flags: {} }],
  [["completion", "zsh"], { command: "completion", args: ["zsh"], flags: {} }],
  [
    ["__complete", "--", "list", "--st"],
    { command: "__complete", args: ["list", "--st"], flags: {} },
  ],
  [["serve"], { command: "serve", args: [], flags: SERVE_DEFAULTS }],
  [
    ["serve", "--port", "0", "--key", "a", "--key", "b:pro", "--no-cors", "--tls", "--quiet"],
    {
      command: "serve",
      args: [],
      flags: {
        ...SERVE_DEFAULTS,
        port: "0",
        key: ["a", "b:pro"],
        cors: false,
        tls: true,
        quiet: true,
      },
    },
  ],
];

describe("the command line", () => {
  it.each(TABLE)("%j is read as commander reads it", async (argv, expected) => {
    expect(await parse(argv)).toEqual(expected);
  });

  it.each([
    [["list", "--bogus"], "commander.unknownOption"],
    [["list", "--status"], "commander.optionMissingArgument"],
    [["list", "--json=yes"], "commander.unknownOption"],
    [["list", "extra"], "commander.excessArguments"],
    [["get"], "commander.missingArgument"],
    [["get", "1", "2"], "commander.excessArguments"],
    [["lst"], "commander.unknownCommand"],
    [["auth", "lgin"], "commander.unknownCommand"],
    [["list", "--help"], "commander.helpDisplayed"],
    [["-h", "list"], "commander.helpDisplayed"],
    [["--version"], "commander.version"],
  ])("%j is refused (or answered) by commander: %s", async (argv, code) => {
    expect(await parse(argv)).toBe(code);
  });

  it("declares only the command a command line names, and every command otherwise", () => {
    const names = (argv: string[]) =>
      buildProgram(createFactory({ io: createTestIO(), env: {} }), argv).commands.map((c) =>
        c.name(),
      );
    const all = [
      "list",
      "get",
      "add",
      "auth",
      "profile",
      "completion",
      "__complete",
      "serve",
      "verdict",
    ];
    expect(names([])).toEqual(all);
    expect(names(["--no-color", "list", "--json"])).toEqual(["list"]);
    expect(names(["auth", "status"])).toEqual(["auth"]);
    expect(names(["-h", "list"])).toEqual(all);
    expect(names(["help", "list"])).toEqual(all);
    expect(names(["lst"])).toEqual(all);
  });

  it("gives every command that has --json a --jq, and --jq only to those", () => {
    const withFlag = (flag: string) => {
      const found: string[] = [];
      const walk = (command: Command, path: string) => {
        if (command.options.some((option) => option.long === flag)) found.push(path);
        for (const child of command.commands) walk(child, `${path} ${child.name()}`.trim());
      };
      walk(buildProgram(createFactory({ io: createTestIO(), env: {} })), "");
      return found;
    };
    const json = withFlag("--json");
    expect(json).toEqual([
      ...["list", "get", "add", "auth status", "profile list", "profile show", "verdict"],
    ]);
    expect(withFlag("--jq")).toEqual(json);
  });
});
