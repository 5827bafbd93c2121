/** `petstore completion <shell>`: prints the completion script generated from the command tree. */
import { completionScript, type Shell } from "../completion/index.js";
import { UsageError } from "../errors.js";
import type { Factory } from "../factory.js";
import type { CommandRunner } from "./runner.js";
import { SHELLS } from "./spec.js";

function isShell(name: string): name is Shell {
  return (SHELLS as readonly string[]).includes(name);
}

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
