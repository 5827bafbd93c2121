/** A completion script for a shell, generated from the commander program. */
import type { Command } from "commander";
import { bashScript } from "./bash.js";
import { fishScript } from "./fish.js";
import { completionTree } from "./tree.js";
import type { Shell } from "./shells.js";
import { zshScript } from "./zsh.js";

const GENERATORS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

export function completionScript(program: Command, shell: Shell): string {
  return GENERATORS[shell](completionTree(program));
}
