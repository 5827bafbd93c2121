/**
 * The command tree as shell `case` tables, shared by the bash and zsh scripts
 * (both read this syntax): subcommands, flags, flags that take a value, and the
 * values of flags and arguments ("words:a b c", "profiles" or "files").
 */
import { plainWords, valueFlags } from "./shell-words.js";
import { allCommands, type CompletionCommand, type ValueHint } from "./tree.js";

/**
 * One word of the command line, in the loop both scripts run over the words
 * before the cursor: a subcommand name extends the command path until the
 * first argument; anything else counts as an argument.
 */
export const COMMAND_WORD = `    __petstore_commands "$cmdpath"
    if ((nargs == 0)) && [[ " $REPLY " == *" $word "* ]]; then
      cmdpath="\${cmdpath:+$cmdpath }$word"
    else
      ((nargs += 1))
    fi`;

function hintReply(hint: ValueHint): string {
  switch (hint.kind) {
    case "words":
      return `words:${plainWords(hint.words)}`;
    case "profiles":
      return "profiles";
    case "files":
      return "files";
  }
}

function caseTable(name: string, comment: string, entries: [string, string][]): string {
  const lines = entries.map(([key, reply]) => `    "${key}") REPLY="${reply}" ;;`);
  return `# ${comment}
${name}() {
  case "$1" in
${lines.join("\n")}
    *) REPLY="" ;;
  esac
}
`;
}

export function caseTables(root: CompletionCommand): string {
  const commands = allCommands(root);
  const flagValues: [string, string][] = [];
  const argumentValues: [string, string][] = [];
  for (const command of commands) {
    for (const option of command.options) {
      if (!option.values) continue;
      for (const name of option.names) {
        flagValues.push([`${command.path}|${name}`, hintReply(option.values)]);
      }
    }
    command.arguments.forEach((argument, index) => {
      if (argument.values)
        argumentValues.push([`${command.path}|${index}`, hintReply(argument.values)]);
    });
  }
  return `${caseTable(
    "__petstore_commands",
    "Subcommands of a command path.",
    commands
      .filter((command) => command.commands.length > 0)
      .map((command) => [command.path, plainWords(command.commands.map((child) => child.name))]),
  )}
${caseTable(
  "__petstore_flags",
  "Flags of a command path.",
  commands.map((command) => [
    command.path,
    plainWords(command.options.flatMap((option) => option.names)),
  ]),
)}
${caseTable(
  "__petstore_value_flags",
  "Flags of a command path that take a value.",
  commands.map((command) => [command.path, plainWords(valueFlags(command.options))]),
)}
${caseTable("__petstore_flag_values", 'Values of "path|flag": words:..., profiles or files.', flagValues)}
${caseTable("__petstore_argument_values", 'Values of "path|argument index".', argumentValues)}`;
}
