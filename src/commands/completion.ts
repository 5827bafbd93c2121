/** `petstore completion <shell>`: prints the completion script generated from the command tree. */
import { Argument, type Command } from "commander";
import { withHint, words } from "../completion/hints.js";
import { completionScript } from "../completion/index.js";
import { isShell, SHELLS } from "../completion/shells.js";
import { UsageError } from "../errors.js";
import type { Factory } from "./factory.js";
import { addExamples } from "./help-layout.js";

/** `wholeTree` builds every command (the program declares only the one it runs). */
export function completionCommand(
  program: Command,
  factory: Factory,
  wholeTree: () => Command,
): void {
  const shells = SHELLS.join(", ");
  const command = program
    .command("completion")
    .description(`print a shell completion script (${shells})`)
    .addArgument(withHint(new Argument("<shell>", shells), words(SHELLS)))
    .action((shell: string) => {
      if (!isShell(shell)) {
        throw new UsageError(`<shell> must be one of ${shells}; got ${JSON.stringify(shell)}`);
      }
      factory.io.stdout.write(completionScript(wholeTree(), shell));
    });
  addExamples(command, [
    "petstore completion bash > ~/.local/share/bash-completion/completions/petstore",
    "petstore completion zsh > ~/.zfunc/_petstore",
    "petstore completion fish > ~/.config/fish/completions/petstore.fish",
  ]);
}
