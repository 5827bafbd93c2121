/**
 * `petstore __complete profiles` (hidden): the stored profile names, one a line,
 * for the completion scripts. It never fails loudly: a broken config file
 * yields no candidates rather than an error in the middle of a command line.
 */
import type { Factory } from "./factory.js";
import type { CommandRunner } from "./runner.js";

export function completionCandidates(kind: string, factory: Factory): string[] {
  if (kind !== "profiles") return [];
  try {
    return Object.keys(factory.config().profiles).sort();
  } catch {
    return [];
  }
}

export const run: CommandRunner = async (parsed, factory) => {
  const names = completionCandidates(parsed.args[0] ?? "", factory);
  factory.io.stdout.write(names.map((name) => name + "\n").join(""));
};
