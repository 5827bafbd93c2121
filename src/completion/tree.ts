/**
 * The command tree as the completion scripts need it, read from the commander
 * program itself (so `serve` and the help command are there too): visible
 * commands, their flags (with the flags of their parents, which commander
 * accepts anywhere), arguments, and what values a flag or argument takes.
 */
import type { Argument, Command, Option } from "commander";
import { hintOf, words, type ValueHint } from "./hints.js";

export type { ValueHint } from "./hints.js";

export interface CompletionOption {
  /** `-o`, `--output`. */
  names: string[];
  description: string;
  takesValue: boolean;
  values?: ValueHint;
}

interface CompletionArgument {
  name: string;
  values?: ValueHint;
}

export interface CompletionCommand {
  name: string;
  /** Names from the root's first subcommand down: `auth login`; "" for the root. */
  path: string;
  description: string;
  options: CompletionOption[];
  arguments: CompletionArgument[];
  commands: CompletionCommand[];
}

function optionOf(option: Option): CompletionOption {
  const names = [option.short, option.long].filter((name): name is string => name !== undefined);
  const result: CompletionOption = {
    names,
    description: option.description,
    takesValue: option.required || option.optional,
  };
  const values = option.argChoices ? words(option.argChoices) : hintOf(option);
  if (result.takesValue && values) result.values = values;
  return result;
}

function argumentOf(argument: Argument): CompletionArgument {
  const name = argument.name();
  const values = argument.argChoices ? words(argument.argChoices) : hintOf(argument);
  return values ? { name, values } : { name };
}

function commandOf(command: Command, path: string): CompletionCommand {
  const help = command.createHelp();
  const options = [...help.visibleOptions(command)];
  for (let parent = command.parent; parent; parent = parent.parent) {
    // Inherited flags, except --version, which only makes sense on its own.
    options.push(...parent.options.filter((o) => !o.hidden && o.long !== "--version"));
  }
  return {
    name: command.name(),
    path,
    description: command.description(),
    options: options.map(optionOf),
    arguments: command.registeredArguments.map(argumentOf),
    commands: help
      .visibleCommands(command)
      .map((child) => commandOf(child, path ? `${path} ${child.name()}` : child.name())),
  };
}

export function completionTree(program: Command): CompletionCommand {
  return commandOf(program, "");
}

/** Every command of the tree, the root first, parents before children. */
export function allCommands(root: CompletionCommand): CompletionCommand[] {
  return [root, ...root.commands.flatMap(allCommands)];
}
