/**
 * The flags of `petstore add --from`, checked before anything is read or sent.
 * The request flags (--timeout, --max-retries, --base-url...) mean what they
 * mean for every command; the single-pet flags do not apply to a file of pets.
 * Of the output flags, `--json` (or `--output ndjson`) and `-q` put each row's
 * outcome on stdout (src/bulk/outcomes.ts); the other formats do not apply.
 */
import { wholeNumberFlag } from "../schema/whole-number.js";
import { Option, type OptionValues } from "commander";
import { FILES, hintedOption, words } from "../completion/hints.js";
import { FIELD_FLAGS } from "./pet-words.js";
import { requestOptionsFrom } from "./request-options.js";
import { UsageError } from "../errors.js";
import type { BulkOptions } from "../bulk/engine.js";
import { INPUT_FORMATS, isInputFormat } from "../bulk/input/input-format.js";
import type { StdoutMode } from "../bulk/outcomes.js";

/** Measured against `petstore serve` (docs/benchmarks.md): the rate stops growing beyond it. */
export const DEFAULT_CONCURRENCY = 16;

/** The flags of a bulk add (docs/bulk-intake.md): with any of them, `add` reads a file of pets. */
export const BULK_OPTIONS: readonly Option[] = [
  hintedOption(
    "--from <path>",
    "add every pet of a CSV, NDJSON or JSON-array file (- for stdin), at the pace the rate limit allows",
    FILES,
  ),
  hintedOption(
    "--format <format>",
    `${INPUT_FORMATS.join(", ")} (default: from the extension, else the content)`,
    words(INPUT_FORMATS),
  ),
  new Option("--skip-invalid", "send the valid rows even if some are invalid (exit 2 at the end)"),
  new Option(
    "--ignore-unknown-columns",
    "CSV: send the known columns, ignore the others (else they are an error)",
  ),
  hintedOption(
    "--results <path>",
    "record each row's outcome (NDJSON: added with its id, invalid, failed, unknown)",
    FILES,
  ),
  hintedOption("--resume <results>", "continue the run recorded in this results file", FILES),
  new Option(
    "--retry-unknown",
    "with --resume: send again the rows whose outcome is unknown (they may be added twice)",
  ),
  new Option("--concurrency <n>", "requests in flight at most, 1 to 64 (16)"),
];

/** `--json` (NDJSON, a line per row), `--output ndjson` (the same) or `-q` (ids in input order). */
function stdoutModeOf(values: OptionValues): StdoutMode | undefined {
  const output = values.output as string | undefined;
  const json = values.json === true;
  const quiet = values.quiet === true;
  if (output !== undefined && output !== "ndjson") {
    throw new UsageError(
      `--from writes each row's outcome as it is known, one NDJSON line per row; --output ${output} does not apply`,
      "use --json (or --output ndjson) for a line per row, or -q for the ids of the added rows",
    );
  }
  if (quiet && (json || output !== undefined)) {
    throw new UsageError(
      `-q/--quiet prints the ids of the added rows; it conflicts with ${json ? "--json" : "--output ndjson"}`,
    );
  }
  if (quiet) return "ids";
  return json || output !== undefined ? "json" : undefined;
}

function concurrencyOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_CONCURRENCY;
  const parsed = wholeNumberFlag(text, "--concurrency", 1, 64);
  if (!parsed.ok) throw new UsageError(parsed.problem);
  return parsed.value;
}

export function bulkOptionsFrom(values: OptionValues, env: NodeJS.ProcessEnv) {
  const from = values.from as string | undefined;
  if (from === undefined) {
    const bulkFlags = BULK_OPTIONS.filter((o) => values[o.attributeName()] !== undefined).map(
      (option) => option.long,
    );
    throw new UsageError(
      `${bulkFlags.join(", ")} only go${bulkFlags.length === 1 ? "es" : ""} with --from <file>`,
    );
  }
  if (from === "") throw new UsageError("--from needs a file path, or - for stdin");
  // The flags of one pet do not apply to a file of pets.
  const petFlags = Object.entries({ ...FIELD_FLAGS, file: "--file" })
    .filter(([key]) => values[key] !== undefined)
    .map(([, flag]) => flag);
  if (petFlags.length > 0) {
    throw new UsageError(
      `--from adds the pets of a file; it does not go with ${petFlags.join(", ")}`,
      "add that pet as a row of the file, or on its own without --from",
    );
  }
  const stdout = stdoutModeOf(values);
  const format = values.format as string | undefined;
  if (format !== undefined && !isInputFormat(format)) {
    throw new UsageError(
      `--format must be one of ${INPUT_FORMATS.join(", ")}; got ${JSON.stringify(format)}`,
    );
  }
  const retryUnknown = values.retryUnknown === true;
  const resume = values.resume as string | undefined;
  if (retryUnknown && resume === undefined) {
    throw new UsageError(
      "--retry-unknown sends again the rows of an earlier run whose outcome is unknown; it needs --resume <results>",
    );
  }
  const results = values.results as string | undefined;
  if (results !== undefined && resume !== undefined && results !== resume) {
    throw new UsageError(
      "--resume continues the results file it names; --results names the file of a new run",
      `to continue that run: --resume ${resume} (without --results)`,
    );
  }
  const request = requestOptionsFrom(values, env);
  const bulk: BulkOptions = {
    from,
    format,
    ignoreUnknownColumns: values.ignoreUnknownColumns === true,
    skipInvalid: values.skipInvalid === true,
    results,
    resume,
    retryUnknown,
    concurrency: concurrencyOf(values.concurrency as string | undefined),
    timeoutMs: request.timeoutMs,
    retry: request.retry,
    verbose: request.verbose,
    stdout,
  };
  return { bulk, request };
}
