/**
 * The flags of `petstore add --from`, checked before anything is read or sent.
 * The request flags (--timeout, --max-retries, --base-url...) mean what they
 * mean for every command; the single-pet flags and the output flags do not
 * apply to a file of pets.
 */
import { wholeNumberFlag } from "../schema/whole-number.js";
import type { OptionValues } from "./fast-parse.js";
import { booleanOption, stringOption } from "./option-values.js";
import { requestOptionsFrom, type RequestOptions } from "./request-options.js";
import { UsageError } from "../errors.js";
import type { BulkOptions } from "../bulk/engine.js";
import { INPUT_FORMATS, isInputFormat } from "../bulk/input/format.js";

/** Measured against `petstore serve` (README, "Bulk add"): the rate stops growing beyond it. */
export const DEFAULT_CONCURRENCY = 16;
export const MAX_CONCURRENCY = 64;

/** Flags of one pet, and output flags: neither applies to a file of pets. */
const PET_FLAGS: Record<string, string> = {
  name: "--name",
  categoryId: "--category-id",
  status: "--status",
  file: "--file",
};
const OUTPUT_FLAGS: Record<string, string> = {
  output: "--output",
  json: "--json",
  quiet: "--quiet",
};

const BULK_ONLY: Record<string, string> = {
  format: "--format",
  skipInvalid: "--skip-invalid",
  ignoreUnknownColumns: "--ignore-unknown-columns",
  results: "--results",
  resume: "--resume",
  retryUnknown: "--retry-unknown",
  concurrency: "--concurrency",
};

function concurrencyOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_CONCURRENCY;
  const parsed = wholeNumberFlag(text, "--concurrency", 1, MAX_CONCURRENCY);
  if (!parsed.ok) throw new UsageError(parsed.problem);
  return parsed.value;
}

export function bulkOptionsFrom(
  values: OptionValues,
  env: NodeJS.ProcessEnv,
): { bulk: BulkOptions; request: RequestOptions } {
  const from = stringOption(values, "from");
  if (from === undefined) {
    const given = Object.entries(BULK_ONLY)
      .filter(([key]) => values[key] !== undefined && values[key] !== false)
      .map(([, flag]) => flag);
    throw new UsageError(
      `${given.join(", ")} only go${given.length === 1 ? "es" : ""} with --from <file>`,
    );
  }
  if (from === "") throw new UsageError("--from needs a file path, or - for stdin");
  const given = (flags: Record<string, string>) =>
    Object.entries(flags)
      .filter(([key]) => values[key] !== undefined && values[key] !== false)
      .map(([, flag]) => flag);
  const petFlags = given(PET_FLAGS);
  const outputFlags = given(OUTPUT_FLAGS);
  if (petFlags.length + outputFlags.length > 0) {
    throw new UsageError(
      `--from adds the pets of a file; it does not go with ${[...petFlags, ...outputFlags].join(", ")}`,
      outputFlags.length > 0
        ? "each row's outcome and new id go to the --results file (NDJSON)"
        : "add that pet as a row of the file, or on its own without --from",
    );
  }
  const format = stringOption(values, "format");
  if (format !== undefined && !isInputFormat(format)) {
    throw new UsageError(
      `--format must be one of ${INPUT_FORMATS.join(", ")}; got ${JSON.stringify(format)}`,
    );
  }
  const retryUnknown = booleanOption(values, "retryUnknown");
  const resume = stringOption(values, "resume");
  if (retryUnknown && resume === undefined) {
    throw new UsageError(
      "--retry-unknown sends again the rows of an earlier run whose outcome is unknown; it needs --resume <results>",
    );
  }
  const request = requestOptionsFrom(values, env);
  const bulk: BulkOptions = {
    from,
    skipInvalid: booleanOption(values, "skipInvalid"),
    retryUnknown,
    concurrency: concurrencyOf(stringOption(values, "concurrency")),
    timeoutMs: request.timeoutMs,
    retry: request.retry,
    verbose: request.verbose,
  };
  if (format !== undefined) bulk.format = format;
  if (booleanOption(values, "ignoreUnknownColumns")) bulk.ignoreUnknownColumns = true;
  const results = stringOption(values, "results");
  if (results !== undefined) bulk.results = results;
  if (resume !== undefined) bulk.resume = resume;
  return { bulk, request };
}
