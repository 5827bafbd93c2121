/**
 * The flags of `petstore add` that give a NewPet's fields, read as the schema
 * takes them. Shared by the flag path (add.ts) and the prompts (add-prompts.ts),
 * so a value typed at a prompt is checked exactly as the same value in a flag.
 */
import { UsageError } from "../errors.js";
import type { Problem } from "../schema/validate.js";
import type { OptionValues } from "./fast-parse.js";
import { stringOption } from "./option-values.js";
import { wrongValueSentence } from "./pet-words.js";

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

/**
 * "--name is required; --category-id: the category id is a whole number, like 3,
 * not "abc"", with a way out. `given`: the fields as petInputFromFlags read them.
 */
export function flagsUsageError(
  problems: readonly Problem[],
  given: Readonly<Record<string, unknown>>,
): UsageError {
  const message = problems
    .map(({ field, problem }) => {
      if (!Object.hasOwn(FIELD_FLAGS, field)) return `${field} ${problem}`;
      const flag = FIELD_FLAGS[field as PetField];
      if (!Object.hasOwn(given, field)) return `${flag} is required`;
      return `${flag}: ${wrongValueSentence(field as PetField, given[field], true)}`;
    })
    .join("; ");
  return new UsageError(message, "or give the whole pet as JSON with --file");
}
