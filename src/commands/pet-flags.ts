/**
 * The flags of `petstore add` that give a NewPet's fields, read as the schema
 * takes them. Shared by the flag path (add.ts) and the prompts (add-prompts.ts),
 * so a value typed at a prompt is checked exactly as the same value in a flag.
 */
import type { UsageError } from "../errors.js";
import type { Problem } from "../schema/validate.js";
import type { OptionValues } from "./fast-parse.js";
import { usageErrorFor } from "./flag-problems.js";
import { stringOption } from "./option-values.js";

export const FIELD_FLAGS = {
  name: "--name",
  categoryId: "--category-id",
  status: "--status",
} as const;

export type PetField = keyof typeof FIELD_FLAGS;

export const PET_FIELDS = Object.keys(FIELD_FLAGS) as PetField[];

/** Decimal digits become an int64 candidate; anything else stays text, for the schema to name. */
export function integerOrText(text: string): bigint | string {
  return /^-?[0-9]+$/.test(text) ? BigInt(text) : text;
}

/** The fields the flags give (the others left out), for `validateNewPet`. */
export function petInputFromFlags(values: OptionValues): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const field of PET_FIELDS) {
    const text = stringOption(values, field);
    if (text !== undefined) input[field] = field === "categoryId" ? integerOrText(text) : text;
  }
  return input;
}

/** "--name is required; --category-id must be ...", with a way out. */
export function flagsUsageError(problems: readonly Problem[]): UsageError {
  return usageErrorFor(problems, FIELD_FLAGS, "or give the whole pet as JSON with --file");
}
