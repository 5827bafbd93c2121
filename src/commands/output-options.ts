/**
 * The output flags, declared once for the commands that print data: `-o`,
 * `--json` and `-q`, read by chooseOutput (src/output/output-format.ts). Every
 * command with `--json` declares it here, so a flag that goes with it is
 * declared once too.
 */
import type { Command } from "commander";
import { hintedOption, words } from "../completion/hints.js";
import { OUTPUT_FORMATS } from "../output/output-format.js";

export function addJsonOption(command: Command, description: string): Command {
  return command.option("--json", description);
}

/** What a command adds to the common words of each flag (`add` says what they do with --from). */
interface OutputWords {
  output?: string;
  json?: string;
  /** false: no -q. */
  quiet?: string | false;
}

export function addOutputOptions(command: Command, more: OutputWords = {}): Command {
  const formats = `${OUTPUT_FORMATS.join(", ")} (default: table on a terminal, else tsv)`;
  command.addOption(
    hintedOption("-o, --output <format>", formats + (more.output ?? ""), words(OUTPUT_FORMATS)),
  );
  addJsonOption(command, `same as --output json${more.json ?? ""}`);
  if (more.quiet !== false) command.option("-q, --quiet", `print only the ids${more.quiet ?? ""}`);
  return command;
}
