/**
 * The entry point, and the only place where an error becomes an exit code and a
 * message. Start-up is a budget (see docs/design.md, "Start-up"): `--version` is answered
 * before anything is loaded; list, get and add are parsed by the fast parser and
 * run without commander; everything else loads the commander program on demand.
 */
import { fastParse } from "./commands/fast-parse.js";
import { HOT_COMMAND_RUNNERS, runCommand } from "./commands/runner.js";
import { GLOBAL_OPTIONS, HOT_COMMANDS } from "./commands/spec.js";
import { VERSION } from "./commands/version.js";
import { EXIT } from "./errors.js";
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

interface ReportedError {
  message: string;
  exitCode?: unknown;
  code?: unknown;
  hint?: unknown;
  /** An outcome said as it is, without `error:` (a declined `add`). */
  plain?: unknown;
  stack?: string;
}

/**
 * Errors are recognised by shape, not class: the commander program is a bundle
 * of its own (dist/program.cjs) with its own copy of the error classes, which
 * would fail an `instanceof`.
 */
async function reportError(error: unknown, io: IO, debug: boolean): Promise<number> {
  const failure: ReportedError =
    error instanceof Error ? (error as ReportedError) : { message: String(error) };
  if (typeof failure.code === "string" && failure.code.startsWith("commander.")) {
    // commander has printed its message (or the help) already.
    return failure.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
  }
  const palette = await loadPalette(io, "stderr");
  const known = typeof failure.exitCode === "number" && failure.exitCode > 0;
  const exitCode = known ? (failure.exitCode as number) : EXIT.UNEXPECTED;
  if (known && failure.plain === true) {
    io.stderr.write(`${failure.message}\n`);
    return exitCode;
  }
  let text = `${palette.red("error:")} ${known ? "" : "unexpected: "}${failure.message}\n`;
  if (typeof failure.hint === "string") text += `${palette.dim(`hint: ${failure.hint}`)}\n`;
  if (debug && failure.stack) text += `${failure.stack}\n`;
  else if (!known) text += `${palette.dim("run again with --debug for the stack trace")}\n`;
  io.stderr.write(text);
  return exitCode;
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
    const hot = fastParse(argv, HOT_COMMANDS, GLOBAL_OPTIONS);
    if (hot) {
      await runCommand(HOT_COMMAND_RUNNERS, hot.name, hot, factory);
    } else {
      const { runProgram } = await import("./commands/program.js");
      await runProgram(argv, factory);
    }
  } catch (error) {
    factory.finish();
    return settleOutput(io, await reportError(error, io, flags.debug));
  }
  factory.finish();
  return settleOutput(io, EXIT.OK);
}
