/**
 * `petstore completion <shell>`: prints the completion script of a shell; and
 * `petstore __complete -- <words>` (hidden), which the scripts call for the
 * candidates of the last word (src/completion/).
 */
import { Argument, type Command } from "commander";
import { complete } from "../completion/complete.js";
import { withHint, words } from "../completion/hints.js";
import { completionScript, SHELLS } from "../completion/scripts.js";
import { UsageError } from "../errors.js";
import type { Factory } from "./factory.js";
import { addExamples } from "./help-layout.js";

export function completionCommand(program: Command, factory: Factory): void {
  const shells = SHELLS.join(", ");
  const command = program
    .command("completion")
    .description(`print a shell completion script (${shells})`)
    .addArgument(withHint(new Argument("<shell>", shells), words(SHELLS)))
    .action((shell: string) => {
      const script = completionScript(shell);
      if (script === undefined) {
        throw new UsageError(`<shell> must be one of ${shells}; got ${JSON.stringify(shell)}`);
      }
      factory.io.stdout.write(script);
    });
  addExamples(command, [
    "petstore completion bash > ~/.local/share/bash-completion/completions/petstore",
    "petstore completion zsh > ~/.zfunc/_petstore",
    "petstore completion fish > ~/.config/fish/completions/petstore.fish",
  ]);
}

/**
 * `wholeTree` builds every command (the program declares only the one it runs).
 * It never fails loudly: a broken config file yields no profile names rather than
 * an error in the middle of a command line.
 */
export function completeCommand(program: Command, factory: Factory, wholeTree: () => Command) {
  program
    .command("__complete", { hidden: true })
    .description("print completion candidates (used by the completion scripts)")
    .argument("[words...]", "the words of the command line after `petstore`")
    .action((typed: string[]) => {
      const lines = complete(wholeTree(), typed, () => profileNames(factory));
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
