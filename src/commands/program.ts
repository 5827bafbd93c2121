/**
 * The commander program, built from the command specs: help with examples,
 * commander's own usage errors (unknown option, missing argument), and every
 * command that the fast parser leaves alone. Loaded only on that path.
 */
import { Argument, Command, Option } from "commander";
import { withHint } from "../completion/hints.js";
import { EXIT_MEANINGS } from "../errors.js";
import { textWidth } from "../output/wrap.js";
import type { Factory } from "./factory.js";
import { addHelpSections, configureHelpLayout, type HelpSection } from "./help-layout.js";
import { registerServeCommand } from "./serve.js";
import { COLD_COMMAND_RUNNERS } from "./cold-runners.js";
import { HOT_COMMAND_RUNNERS, runCommand, type Runners } from "./runner.js";
import { COMMANDS, GLOBAL_OPTIONS, type CommandSpec } from "./spec.js";
import { VERSION } from "./version.js";
import type { OptionValues } from "./fast-parse.js";

/** What each exit code means (EXIT_MEANINGS, the README's table too). */
export const EXIT_CODES_SECTION: HelpSection = {
  title: "Exit codes",
  blocks: [{ items: Object.entries(EXIT_MEANINGS) }],
};

const ENVIRONMENT_SECTION: HelpSection = {
  title: "Environment",
  blocks: [
    { text: "Flags override these, and these override the stored profile." },
    {
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
  ],
};

const COMMAND_RUNNERS: Runners = { ...HOT_COMMAND_RUNNERS, ...COLD_COMMAND_RUNNERS };

/** Under a usage error, every command says where its own help is: "run `petstore get --help` for usage". */
function setUsageFooters(command: Command, path: readonly string[]): void {
  command.showHelpAfterError(`run \`${["petstore", ...path].join(" ")} --help\` for usage`);
  for (const child of command.commands) setUsageFooters(child, [...path, child.name()]);
}

function addCommand(parent: Command, spec: CommandSpec, path: string[], factory: Factory): void {
  const command = parent.command(spec.name, { hidden: spec.hidden === true });
  command.description(spec.description);
  for (const argument of spec.arguments ?? []) {
    const name = argument.required ? `<${argument.name}>` : `[${argument.name}]`;
    command.addArgument(withHint(new Argument(name, argument.description), argument.values));
  }
  for (const option of spec.options ?? [])
    command.addOption(withHint(new Option(option.flags, option.description), option.values));
  if (spec.examples?.length) {
    addHelpSections(command, [{ title: "Examples", blocks: [{ commands: spec.examples }] }]);
  }
  const commandPath = [...path, spec.name];
  if (spec.commands) {
    for (const child of spec.commands) addCommand(command, child, commandPath, factory);
    return;
  }
  command.action(async (...params: unknown[]) => {
    const self = params[params.length - 1] as Command;
    const args = self.processedArgs.filter((arg): arg is string => typeof arg === "string");
    const options = self.optsWithGlobals() as OptionValues;
    await runCommand(
      COMMAND_RUNNERS,
      commandPath.join(" "),
      { name: spec.name, args, options },
      factory,
    );
  });
}

/** The whole command tree; `factory` is used only when an action runs. */
export function buildProgram(factory: Factory): Command {
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
    .exitOverride();
  configureHelpLayout(program);
  for (const option of GLOBAL_OPTIONS)
    program.addOption(new Option(option.flags, option.description));
  addHelpSections(program, [EXIT_CODES_SECTION, ENVIRONMENT_SECTION]);
  for (const spec of COMMANDS) addCommand(program, spec, [], factory);
  registerServeCommand(program, factory);
  setUsageFooters(program, []);
  return program;
}

/** Parses and runs; errors (commander's included) are thrown for cli.ts to report. */
export async function runProgram(argv: readonly string[], factory: Factory): Promise<void> {
  await buildProgram(factory).parseAsync([...argv], { from: "user" });
}
