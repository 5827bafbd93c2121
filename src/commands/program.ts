/**
 * The commander program: the one parser of every command line, and the tree the
 * help and the shell completions are made from. Each command declares its flags
 * and runs in its own file; errors (commander's included) are thrown for cli.ts.
 */
import { Command } from "commander";
import { EXIT_MEANINGS } from "../errors.js";
import { textWidth } from "../output/wrap.js";
import { addCommand } from "./add.js";
import { loginCommand } from "./auth/login.js";
import { logoutCommand } from "./auth/logout.js";
import { statusCommand } from "./auth/status.js";
import { completeCommand, completionCommand } from "./completion.js";
import type { Factory } from "./factory.js";
import { getCommand } from "./get.js";
import { addHelpSections, configureHelpLayout } from "./help-layout.js";
import { listCommand } from "./list.js";
import { useJqFilter } from "./output-options.js";
import { profileCommand } from "./profile.js";
import { serveCommand } from "./serve.js";
import { verdictCommand } from "./verdict.js";
import { VERSION } from "./version.js";

/** Each top-level command, declared on the program it is given; in the order `--help` lists them. */
const COMMANDS: Record<string, (parent: Command, factory: Factory) => void> = {
  list: listCommand,
  get: getCommand,
  add: addCommand,
  auth: (program, factory) => {
    const auth = program.command("auth").description("store, check and remove API keys");
    for (const declare of [loginCommand, statusCommand, logoutCommand]) declare(auth, factory);
  },
  profile: profileCommand,
  completion: completionCommand,
  __complete: (program, factory) => completeCommand(program, factory, () => buildProgram(factory)),
  serve: serveCommand,
  verdict: verdictCommand,
};

/** Under a usage error, every command says where its own help is: "run `petstore get --help` for usage". */
function setUsageFooters(command: Command, path: readonly string[]): void {
  command.showHelpAfterError(`run \`${["petstore", ...path].join(" ")} --help\` for usage`);
  for (const child of command.commands) setUsageFooters(child, [...path, child.name()]);
}

/**
 * The command tree; `factory` is used only when an action runs. Given a command
 * line that names a command, only that command is declared (a start-up cost:
 * docs/benchmarks.md); the whole tree otherwise (help, a command to suggest).
 */
export function buildProgram(factory: Factory, argv: readonly string[] = []): Command {
  const { io, env } = factory;
  const program = new Command("petstore")
    .description("Browse and add pets of the Pet Store adoption service; `serve` runs a local fake")
    .version(VERSION, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      getOutHelpWidth: () => textWidth(io.stdout, env),
      getErrHelpWidth: () => textWidth(io.stderr, env),
    })
    .exitOverride()
    .option("--no-color", "no colour on stdout or stderr (also NO_COLOR=1, TERM=dumb)")
    .option("--debug", "show stack traces of errors")
    .hook("preAction", (_program, command) => useJqFilter(command, factory));
  configureHelpLayout(program);
  addHelpSections(program, [
    // What each exit code means (EXIT_MEANINGS, the README's table too).
    { title: "Exit codes", items: Object.entries(EXIT_MEANINGS) },
    {
      title: "Environment",
      text: "Flags override these, and these override the stored profile.",
      items: [
        ["PETSTORE_API_KEY", "the API key"],
        ["PETSTORE_PROFILE", "the stored profile to use"],
        ["PETSTORE_ENV", "production or staging"],
        ["PETSTORE_BASE_URL", "the service's address"],
        ["PETSTORE_CONFIG_DIR", "where profiles are stored"],
        ["PETSTORE_DEBUG=1", "same as --verbose"],
        ["PETSTORE_NO_DEPRECATION_WARNING=1", "no warning from `petstore get`"],
        ["NO_COLOR, FORCE_COLOR, TERM=dumb", "colour on or off (--no-color wins)"],
        ["COLUMNS", "the width of help and messages (default: the terminal's, else 80)"],
      ],
    },
  ]);
  const named = argv.find((arg) => arg !== "--no-color" && arg !== "--debug");
  const only = named !== undefined && Object.hasOwn(COMMANDS, named) ? named : undefined;
  for (const [name, declare] of Object.entries(COMMANDS)) {
    if (only === undefined || only === name) declare(program, factory);
  }
  setUsageFooters(program, []);
  return program;
}

/** Parses and runs; errors (commander's included) are thrown for cli.ts to report. */
export async function runProgram(argv: readonly string[], factory: Factory): Promise<void> {
  await buildProgram(factory, argv).parseAsync([...argv], { from: "user" });
}
