/** `petstore completion <shell>`: prints the completion script generated from the command tree. */
import { completionScript } from "../completion/index.js";
import { isShell, SHELLS } from "../completion/shells.js";
import { UsageError } from "../errors.js";
import type { Factory } from "./factory.js";
import type { CommandRunner } from "./runner.js";

export async function completionRun(shell: string, factory: Factory): Promise<void> {
  if (!isShell(shell)) {
    throw new UsageError(
      `<shell> must be one of ${SHELLS.join(", ")}; got ${JSON.stringify(shell)}`,
    );
  }
  const { buildProgram } = await import("./program.js");
  factory.io.stdout.write(completionScript(buildProgram(factory), shell));
}

export const run: CommandRunner = (parsed, factory) => completionRun(parsed.args[0] ?? "", factory);
