/** A completion script for a shell, generated from the commander program. */
import type { Command } from "commander";
import type { SHELLS } from "../commands/spec.js";
import { bashScript } from "./bash.js";
import { fishScript } from "./fish.js";
import { completionTree } from "./tree.js";
import { zshScript } from "./zsh.js";

export type Shell = (typeof SHELLS)[number];

const GENERATORS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

export function completionScript(program: Command, shell: Shell): string {
  return GENERATORS[shell](completionTree(program));
}
