/**
 * How a command is run, whichever parser read its command line: the flag values
 * and arguments in, nothing out (errors are thrown; cli.ts decides the exit code).
 * Implementations load only when their command runs.
 */
import type { Factory } from "./factory.js";
import type { ParsedCommand } from "./fast-parse.js";

export type CommandRunner = (parsed: ParsedCommand, factory: Factory) => Promise<void>;

type RunnerModule = { run: CommandRunner };

export type Runners = Readonly<Record<string, () => Promise<RunnerModule>>>;

/** The commands the fast parser answers (kept apart so the hot bundle holds no others). */
export const HOT_COMMAND_RUNNERS: Runners = {
  list: () => import("./list.js"),
  get: () => import("./get.js"),
  add: () => import("./add.js"),
};

export async function runCommand(
  runners: Runners,
  path: string,
  parsed: ParsedCommand,
  factory: Factory,
): Promise<void> {
  const load = runners[path];
  if (load === undefined) throw new Error(`no implementation for the command "${path}"`);
  const { run } = await load();
  await run(parsed, factory);
}
