/**
 * The entry point, and the only place where an error becomes an exit code and a
 * message. Start-up is a budget (see docs/design.md, "Start-up"): `--version` is
 * answered before anything else; every command line is parsed by the commander
 * program (src/commands/program.ts).
 */
import { runProgram } from "./commands/program.js";
import { VERSION } from "./commands/version.js";
import { DeclinedError, EXIT, PetstoreError } from "./errors.js";
import { createFactory, type FactoryDeps } from "./commands/factory.js";
import { createProcessIO, type IO } from "./io.js";
import { loadPalette } from "./output/palette.js";
import { stdoutWriteError } from "./output/write-failure.js";

export type MainDeps = Partial<FactoryDeps>;

/** `--no-color` and `--debug` count wherever they appear before `--`, even on a usage error. */
function globalFlags(argv: readonly string[]): { noColor: boolean; debug: boolean } {
  const end = argv.indexOf("--");
  const flags = end === -1 ? argv : argv.slice(0, end);
  return { noColor: flags.includes("--no-color"), debug: flags.includes("--debug") };
}

/** commander's own errors carry its `code`. */
function commanderExit(error: unknown): number | undefined {
  if (!(error instanceof Error) || !("code" in error)) return undefined;
  if (typeof error.code !== "string" || !error.code.startsWith("commander.")) return undefined;
  return "exitCode" in error && error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
}

/** `instanceof` holds for an error from any bundle (see src/schema/kinded-error.ts). */
async function reportError(error: unknown, io: IO, debug: boolean): Promise<number> {
  const commander = commanderExit(error);
  // commander has printed its message (or the help) already.
  if (commander !== undefined) return commander;
  const palette = await loadPalette(io, "stderr");
  if (error instanceof DeclinedError) {
    io.stderr.write(`${error.message}\n`);
    return error.exitCode;
  }
  const known = error instanceof PetstoreError;
  const message = error instanceof Error ? error.message : String(error);
  let text = `${palette.red("error:")} ${known ? "" : "unexpected: "}${message}\n`;
  if (known && error.hint !== undefined) text += `${palette.dim(`hint: ${error.hint}`)}\n`;
  const stack = error instanceof Error ? error.stack : undefined;
  if (debug && stack) text += `${stack}\n`;
  else if (!known) text += `${palette.dim("run again with --debug for the stack trace")}\n`;
  io.stderr.write(text);
  return known ? error.exitCode : EXIT.UNEXPECTED;
}

/** Output that never arrived is a failure, whatever the command thought (`--help` included). */
async function settleOutput(io: IO, code: number): Promise<number> {
  const failure = await io.stdout.settle();
  return failure && code === EXIT.OK ? reportError(stdoutWriteError(failure), io, false) : code;
}

export async function main(argv: readonly string[], deps: MainDeps = {}): Promise<number> {
  const env = deps.env ?? process.env;
  const io = deps.io ?? createProcessIO(env);
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    io.stdout.write(`${VERSION}\n`);
    return settleOutput(io, EXIT.OK);
  }
  const flags = globalFlags(argv);
  if (flags.noColor) io.disableColor();
  const factory = createFactory({ ...deps, io, env });
  try {
    await runProgram(argv, factory);
  } catch (error) {
    factory.finish();
    return settleOutput(factory.io, await reportError(error, io, flags.debug));
  }
  factory.finish();
  // factory.io: with --jq, stdout is the filter's (src/commands/output-options.ts).
  return settleOutput(factory.io, EXIT.OK);
}
