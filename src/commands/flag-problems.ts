/**
 * The shared validators name schema fields (`limit`, `categoryId`); a person
 * typed flags. This turns their problems into one usage error naming the flags.
 */
import { UsageError } from "../errors.js";
import type { Problem } from "../schema/validate.js";

export function usageErrorFor(
  problems: readonly Problem[],
  flagOf: Readonly<Record<string, string>>,
  hint?: string,
): UsageError {
  const message = problems.map((p) => `${flagOf[p.field] ?? p.field} ${p.problem}`).join("; ");
  return new UsageError(message, hint);
}
