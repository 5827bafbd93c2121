/**
 * A pet's fields as a person gives them (the flags of `petstore add`, its
 * prompts, `get`'s id) and what they read when one is wrong: "The category id
 * is a whole number, like 3", with a range only when a number is out of it. The
 * flag path (add.ts) and the prompts (add-prompts.ts) share it, so a value typed
 * at a prompt is checked exactly as the same value in a flag. The shared schema
 * still decides whether a value is valid (schema/validate.ts), and its exact
 * wording stays where programs read it: the service's Error body, and `add
 * --file` and `add --from`, whose input is JSON.
 */
import { UsageError } from "../errors.js";
import { INT64_MAX, INT64_MIN, NAME_MAX_LENGTH, PET_STATUSES } from "../schema/pet.js";
import type { Problem } from "../schema/validate.js";

export const FIELD_FLAGS = {
  name: "--name",
  categoryId: "--category-id",
  status: "--status",
} as const;

export type PetField = keyof typeof FIELD_FLAGS;

export const PET_FIELDS = Object.keys(FIELD_FLAGS) as PetField[];

/** The field flags as commander gives them. */
export type PetFlags = Partial<Record<PetField, string>>;

/** Decimal digits become an int64 candidate; anything else stays text, for the schema to name. */
export function integerOrText(text: string): bigint | string {
  return /^-?[0-9]+$/.test(text) ? BigInt(text) : text;
}

/** The fields the flags give (the others left out), for `validateNewPet`. */
export function petInputFromFlags(flags: PetFlags): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const field of PET_FIELDS) {
    const text = flags[field];
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

export type WordedField = "name" | "categoryId" | "status" | "petId";

const INTEGERS = {
  categoryId: { subject: "the category id", example: "3" },
  petId: { subject: "a pet's id", example: "42" },
};

/**
 * The rule a refused value breaks: an integer that is not one at all, is written
 * with leading zeros, or is out of range; a status not in the list; a name that
 * is empty, only spaces, or too long.
 */
function brokenRule(field: WordedField, value: unknown): string {
  if (field === "status") {
    return `the status is ${PET_STATUSES.slice(0, -1).join(", ")} or ${PET_STATUSES.at(-1)}`;
  }
  if (field === "name") {
    const name = String(value);
    if (name === "") return "the name can't be empty";
    if (name.trim() === "") return "the name can't be only spaces";
    return `the name is at most ${NAME_MAX_LENGTH} characters; this one has ${[...name].length}`;
  }
  const { subject, example } = INTEGERS[field];
  const digits = String(value);
  if (!/^-?[0-9]+$/.test(digits)) return `${subject} is a whole number, like ${example}`;
  if (/^-?0[0-9]/.test(digits))
    return `${subject} is written without leading zeros, like ${example}`;
  return BigInt(digits) > INT64_MAX
    ? `${subject} is at most ${INT64_MAX}`
    : `${subject} is at least ${INT64_MIN}`;
}

/**
 * The sentence for a value the schema refused, starting lower-case: "the
 * category id is a whole number, like 3". With `echo`, the value given is
 * named after it (`, not "abc"`), where that helps.
 */
export function wrongValueSentence(field: WordedField, value: unknown, echo: boolean): string {
  const rule = brokenRule(field, value);
  // A name's rule says all there is to say of it.
  if (!echo || field === "name") return rule;
  const text = String(value);
  const cut = text.length > 40 ? text.slice(0, 37) : text;
  const shown = typeof value === "string" && !/^-?[0-9]+$/.test(value) ? JSON.stringify(cut) : cut;
  return `${rule}, not ${shown}${cut === text ? "" : "..."}`;
}

/** The sentence as a sentence: "The category id is a whole number, like 3". */
export function capitalized(sentence: string): string {
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}
