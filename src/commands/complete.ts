/**
 * `petstore __complete -- <words>` (hidden): the completion candidates for the last
 * word, for the completion scripts (src/completion/). It never fails loudly: a
 * broken config file yields no profile names rather than an error in the middle of
 * a command line.
 */
import type { Command } from "commander";
import { complete } from "../completion/complete.js";
import type { Factory } from "./factory.js";

/** `wholeTree` builds every command (the program declares only the one it runs). */
export function completeCommand(program: Command, factory: Factory, wholeTree: () => Command) {
  program
    .command("__complete", { hidden: true })
    .description("print completion candidates (used by the completion scripts)")
    .argument("[words...]", "the words of the command line after `petstore`")
    .action((words: string[]) => {
      const lines = complete(wholeTree(), words, () => profileNames(factory));
      factory.io.stdout.write(lines.map((line) => line + "\n").join(""));
    });
}

function profileNames(factory: Factory): string[] {
  try {
    return Object.keys(factory.config().profiles).sort();
  } catch {
    return [];
  }
}
