/**
 * What a shell offers for the word being typed, worked out once for every shell
 * (as gh's cobra does): the completion scripts (scripts.ts) pass the words of the
 * command line to `petstore __complete` and show what this returns. The command
 * path is found by walking the words before the cursor, skipping flags and their
 * values; then the word is a flag's value, a flag, a subcommand or an argument.
 */
import type { Argument, Command, Option } from "commander";
import { hintOf, words, type ValueHint } from "./hints.js";

/** The one line that asks the shell to complete a file name itself. */
export const FILES = ":files";

/** `word` and, for the shells that show one (fish), a tab and its description. */
function candidates(pairs: [string, string][], typed: string, prefix = ""): string[] {
  return pairs
    .filter(([word]) => word.startsWith(typed))
    .map(([word, description]) => `${prefix}${word}${description ? `\t${description}` : ""}`);
}

/** A command's flags and its parents' (commander accepts them anywhere), but --version. */
function optionsOf(command: Command): Option[] {
  const options = [...command.createHelp().visibleOptions(command)];
  for (let parent = command.parent; parent; parent = parent.parent) {
    options.push(...parent.options.filter((o) => !o.hidden && o.long !== "--version"));
  }
  return options;
}

const namesOf = (option: Option) =>
  [option.short, option.long].filter((name) => name !== undefined);

function valueOption(command: Command, flag: string): Option | undefined {
  return optionsOf(command).find(
    (option) => (option.required || option.optional) && namesOf(option).includes(flag),
  );
}

const hintFor = (target: Option | Argument): ValueHint | undefined =>
  target.argChoices ? words(target.argChoices) : hintOf(target);

/** The values of a flag (shown with its description) or of an argument. */
function values(
  target: Option | Argument | undefined,
  typed: string,
  prefix: string,
  profiles: () => string[],
): string[] {
  const hint = target && hintFor(target);
  const description = target && "long" in target ? target.description : "";
  if (hint?.kind === "files") return [FILES];
  const found = hint?.kind === "words" ? hint.words : hint?.kind === "profiles" ? profiles() : [];
  return candidates(
    found.map((word) => [word, description]),
    typed,
    prefix,
  );
}

/**
 * The candidates for the last of `line`, the words after the program's name as
 * the shell split them (bash splits `--flag=value` at `=` into three words).
 */
export function complete(program: Command, line: readonly string[], profiles: () => string[]) {
  const before = line.slice(0, -1);
  let typed = line.at(-1) ?? "";
  let command = program;
  let nargs = 0;
  for (let i = 0; i < before.length; i++) {
    const word = before[i]!;
    if (word.startsWith("-")) {
      // Its value follows, after a "=" of its own when bash split "--flag=value".
      if (!word.includes("=") && valueOption(command, word)) i += before[i + 1] === "=" ? 2 : 1;
      continue;
    }
    if (word === "=") {
      i++;
      continue;
    }
    const visible = command.createHelp().visibleCommands(command);
    const child = nargs === 0 ? visible.find((c) => c.name() === word) : undefined;
    if (child) command = child;
    else nargs++;
  }

  const previous = before.at(-1) ?? "";
  let flag: string | undefined;
  let prefix = "";
  if (typed === "=" && previous.startsWith("-")) {
    flag = previous;
    typed = "";
  } else if (previous === "=" && before.length >= 2) {
    flag = before.at(-2);
  } else if (/^--[^=]*=/.test(typed)) {
    prefix = typed.slice(0, typed.indexOf("=") + 1);
    flag = prefix.slice(0, -1);
    typed = typed.slice(prefix.length);
  } else if (previous.startsWith("-") && valueOption(command, previous)) {
    flag = previous;
  }
  if (flag !== undefined) return values(valueOption(command, flag), typed, prefix, profiles);
  if (typed.startsWith("-")) {
    const flags = optionsOf(command).flatMap((option) =>
      namesOf(option).map((name): [string, string] => [name, option.description]),
    );
    return candidates(flags, typed);
  }
  const children = command.createHelp().visibleCommands(command);
  if (nargs === 0 && children.length > 0) {
    return candidates(
      children.map((child) => [child.name(), child.description()]),
      typed,
    );
  }
  return values(command.registeredArguments[nargs], typed, "", profiles);
}
