/** `petstore completion <shell>`: prints the completion script of a shell. */
import { Argument, type Command } from "commander";
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
