/**
 * The output flags, declared once for the commands that print data: `-o`,
 * `--json` and `-q`, read by chooseOutput (src/output/output-format.ts). Every
 * command with `--json` declares it here, so `--jq`, which goes with it, is
 * declared once too.
 */
import type { Command } from "commander";
import { hintedOption, words } from "../completion/hints.js";
import { UsageError } from "../errors.js";
import { OUTPUT_FORMATS } from "../output/output-format.js";
import type { Factory } from "./factory.js";

export function addJsonOption(command: Command, description: string): Command {
  return command
    .option("--json", description)
    .option(
      "--jq <filter>",
      "filter the JSON with jq (built in, no jq needed); strings print raw, as with jq -r",
    );
}

/**
 * Before a command runs (program.ts): with `--jq`, its output is the JSON, and
 * what it writes to stdout goes through the filter (src/output/jq.ts, loaded only
 * then). The filter is compiled first: one that does not compile is a usage error
 * before anything is read or sent.
 */
export async function useJqFilter(command: Command, factory: Factory): Promise<void> {
  const { jq, output, quiet } = command.opts<{ jq?: string; output?: string; quiet?: boolean }>();
  if (jq === undefined) return;
  const other = quiet ? "-q/--quiet" : output && output !== "json" ? `--output ${output}` : "";
  if (other) throw new UsageError(`--jq filters the JSON output; it conflicts with ${other}`);
  command.setOptionValue("json", true);
  const { jqStdout } = await import("../output/jq.js");
  const { io } = factory;
  factory.io = { ...io, stdout: await jqStdout(io.stdout, io.stderr, jq) };
}

/**
 * `more`: what a command adds to the common words of each flag (`add` says what
 * they do with --from); `quiet: false` offers no -q.
 */
export function addOutputOptions(
  command: Command,
  more: { output?: string; json?: string; quiet?: string | false } = {},
): Command {
  const formats = `${OUTPUT_FORMATS.join(", ")} (default: table on a terminal, else tsv)`;
  command.addOption(
    hintedOption("-o, --output <format>", formats + (more.output ?? ""), words(OUTPUT_FORMATS)),
  );
  addJsonOption(command, `same as --output json${more.json ?? ""}`);
  if (more.quiet !== false) command.option("-q, --quiet", `print only the ids${more.quiet ?? ""}`);
  return command;
}
