/**
 * Which rendering a command's data gets. On a terminal the default is a table; piped,
 * it is tab-separated (as the GitHub CLI does), so `petstore list | cut -f2` works
 * without flags. `--json` is `--output json`; `-q` prints ids only.
 */
import { UsageError } from "../errors.js";

export const OUTPUT_FORMATS = ["table", "tsv", "csv", "json", "ndjson"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
/** What a command prints: a format, or only the ids (`-q`). */
export type OutputChoice = OutputFormat | "ids";

export interface OutputFlags {
  output?: string;
  json?: boolean;
  quiet?: boolean;
}

function isOutputFormat(value: string): value is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(value);
}

export function chooseOutput(flags: OutputFlags, stdoutIsTTY: boolean): OutputChoice {
  const { output, json, quiet } = flags;
  if (output !== undefined && !isOutputFormat(output)) {
    throw new UsageError(
      `--output must be one of ${OUTPUT_FORMATS.join(", ")}; got ${JSON.stringify(output)}`,
    );
  }
  if (json && output !== undefined && output !== "json") {
    throw new UsageError(`--json means --output json; it conflicts with --output ${output}`);
  }
  const format = json ? "json" : output;
  if (quiet) {
    if (format !== undefined) {
      throw new UsageError(`-q/--quiet prints ids only; it conflicts with --output ${format}`);
    }
    return "ids";
  }
  return format ?? (stdoutIsTTY ? "table" : "tsv");
}
