/**
 * Answers the hot commands (list, get, add) without loading commander, whose
 * import is a large part of Node's whole start-up (docs/benchmarks.md, "Start-up").
 *
 * It reads the same command specs commander is built from, and gives up
 * (returns undefined) on anything it does not fully understand: --help, an
 * unknown flag, a missing value, too many arguments, bundled short flags. Then
 * commander parses the line and reports the error in its usual words. When it
 * does answer, the result equals commander's `optsWithGlobals()` (a test checks
 * both parsers on the same table of command lines).
 */
import type { CommandSpec, OptionSpec } from "./spec.js";

export type OptionValues = Record<string, string | boolean>;

export interface ParsedCommand {
  /** The command's name, e.g. `list`. */
  name: string;
  args: string[];
  options: OptionValues;
}

interface FlagInfo {
  short?: string;
  long: string;
  /** Commander's attribute name: `--category-id` -> categoryId, `--no-retry` -> retry. */
  key: string;
  takesValue: boolean;
  /** `--no-x` sets x to false, and x defaults to true. */
  negate: boolean;
}

function camelCase(words: string): string {
  return words.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

function flagInfo(option: OptionSpec): FlagInfo {
  const long = /--[a-z][a-z-]*/.exec(option.flags)?.[0];
  if (long === undefined) throw new Error(`option without a long flag: ${option.flags}`);
  const short = /(?:^|\s)(-[a-zA-Z])\b/.exec(option.flags)?.[1];
  const negate = long.startsWith("--no-");
  const info: FlagInfo = {
    long,
    key: camelCase(negate ? long.slice(5) : long.slice(2)),
    takesValue: option.flags.includes("<"),
    negate,
  };
  if (short !== undefined) info.short = short;
  return info;
}

function defaultsOf(flags: readonly FlagInfo[]): OptionValues {
  const values: OptionValues = {};
  for (const flag of flags) if (flag.negate) values[flag.key] = true;
  return values;
}

export function fastParse(
  argv: readonly string[],
  commands: readonly CommandSpec[],
  globalOptions: readonly OptionSpec[],
): ParsedCommand | undefined {
  const globals = globalOptions.map(flagInfo);
  let i = 0;
  const leading: FlagInfo[] = [];
  for (; i < argv.length && argv[i]!.startsWith("-"); i++) {
    const flag = globals.find((g) => g.long === argv[i] && !g.takesValue);
    if (flag === undefined) return undefined;
    leading.push(flag);
  }
  const command = commands.find((c) => c.name === argv[i] && c.commands === undefined);
  if (command === undefined) return undefined;
  const flags = [...(command.options ?? []).map(flagInfo), ...globals];
  const options = defaultsOf(flags);
  for (const flag of leading) options[flag.key] = !flag.negate;
  const args: string[] = [];

  for (i++; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "--") {
      args.push(...argv.slice(i + 1));
      break;
    }
    if (token === "-" || !token.startsWith("-")) {
      args.push(token);
      continue;
    }
    let flag: FlagInfo | undefined;
    let inline: string | undefined;
    if (token.startsWith("--")) {
      const eq = token.indexOf("=");
      const long = eq === -1 ? token : token.slice(0, eq);
      if (eq !== -1) inline = token.slice(eq + 1);
      flag = flags.find((f) => f.long === long);
    } else {
      flag = flags.find((f) => f.short === token.slice(0, 2));
      if (token.length > 2) {
        if (!flag?.takesValue) return undefined;
        inline = token.slice(2);
      }
    }
    if (flag === undefined) return undefined;
    if (!flag.takesValue) {
      if (inline !== undefined) return undefined;
      options[flag.key] = !flag.negate;
      continue;
    }
    if (inline === undefined) {
      // commander gives a global flag to the program wherever it stands, even here, and
      // takes "--" as the end of the program's options before any value.
      const next = argv[i + 1];
      if (next === undefined || next === "--" || globals.some((g) => g.long === next)) {
        return undefined;
      }
      inline = next;
      i++;
    }
    options[flag.key] = inline;
  }

  const declared = command.arguments ?? [];
  const required = declared.filter((a) => a.required).length;
  if (args.length < required || args.length > declared.length) return undefined;
  return { name: command.name, args, options };
}
