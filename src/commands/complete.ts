/**
 * `petstore __complete profiles` (hidden): the stored profile names, one a line,
 * for the completion scripts. It never fails loudly: a broken config file
 * yields no candidates rather than an error in the middle of a command line.
 */
import type { Command } from "commander";
import type { Factory } from "./factory.js";

export function completeCommand(program: Command, factory: Factory): void {
  program
    .command("__complete", { hidden: true })
    .description("print completion candidates (used by the completion scripts)")
    .argument("<kind>", "profiles")
    .action((kind: string) => {
      const names = kind === "profiles" ? profileNames(factory) : [];
      factory.io.stdout.write(names.map((name) => name + "\n").join(""));
    });
}

function profileNames(factory: Factory): string[] {
  try {
    return Object.keys(factory.config().profiles).sort();
  } catch {
    return [];
  }
}
