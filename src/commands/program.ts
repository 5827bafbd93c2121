/**
 * The commander program, built from the command specs: help with examples,
 * commander's own usage errors (unknown option, missing argument), and every
 * command that the fast parser leaves alone. Loaded only on that path.
 */
import { Command, Option } from "commander";
import type { Factory } from "../factory.js";
import { registerServeCommand } from "./serve.js";
import { COLD_COMMAND_RUNNERS } from "./cold-runners.js";
import { HOT_COMMAND_RUNNERS, runCommand, type Runners } from "./runner.js";
import { COMMANDS, GLOBAL_OPTIONS, type CommandSpec } from "./spec.js";
import { VERSION } from "./version.js";
import type { OptionValues } from "./fast-parse.js";

export const EXIT_CODES_HELP = `Exit codes:
  0  success
  1  unexpected error, or the output could not be written (a full disk)
  2  usage or invalid input (also a 400 answer from the service)
  3  authentication: no key, or the key was rejected (401)
  4  not found (404)
  5  still rate limited after the retries (429)
  6  network error or timeout
  7  outcome unknown: an add may or may not have happened
  130 interrupted (Ctrl-C) during add --from; --resume continues`;

export const ENVIRONMENT_HELP = `Environment:
  PETSTORE_API_KEY, PETSTORE_PROFILE, PETSTORE_ENV, PETSTORE_BASE_URL
                      override the stored profile (flags override these)
  PETSTORE_CONFIG_DIR where profiles are stored
  PETSTORE_DEBUG=1    same as --verbose
  PETSTORE_NO_DEPRECATION_WARNING=1
                      no warning from \`petstore get\`
  NO_COLOR, FORCE_COLOR, TERM=dumb
                      colour on or off (--no-color wins)`;

const COMMAND_RUNNERS: Runners = { ...HOT_COMMAND_RUNNERS, ...COLD_COMMAND_RUNNERS };

function examplesHelp(spec: CommandSpec): string | undefined {
  if (!spec.examples?.length) return undefined;
  return `\nExamples:\n${spec.examples.map((example) => `  $ ${example}`).join("\n")}`;
}

function addCommand(parent: Command, spec: CommandSpec, path: string[], factory: Factory): void {
  const command = parent.command(spec.name, { hidden: spec.hidden === true });
  command.description(spec.description);
  for (const argument of spec.arguments ?? []) {
    command.argument(
      argument.required ? `<${argument.name}>` : `[${argument.name}]`,
      argument.description,
    );
  }
  for (const option of spec.options ?? [])
    command.addOption(new Option(option.flags, option.description));
  const examples = examplesHelp(spec);
  if (examples) command.addHelpText("after", examples);
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
  const { io } = factory;
  const program = new Command("petstore")
    .description("Browse and add pets of the Pet Store adoption service; `serve` runs a local fake")
    .version(VERSION, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      getOutHelpWidth: () => io.stdout.columns ?? 80,
      getErrHelpWidth: () => io.stderr.columns ?? 80,
    })
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError("(add --help for usage)")
    .exitOverride();
  for (const option of GLOBAL_OPTIONS)
    program.addOption(new Option(option.flags, option.description));
  program.addHelpText("after", `\n${EXIT_CODES_HELP}\n\n${ENVIRONMENT_HELP}`);
  for (const spec of COMMANDS) addCommand(program, spec, [], factory);
  registerServeCommand(program);
  return program;
}

/** Parses and runs; errors (commander's included) are thrown for cli.ts to report. */
export async function runProgram(argv: readonly string[], factory: Factory): Promise<void> {
  await buildProgram(factory).parseAsync([...argv], { from: "user" });
}
