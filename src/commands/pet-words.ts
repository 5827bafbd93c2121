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

const SUBJECT: Record<WordedField, string> = {
  name: "the name",
  categoryId: "the category id",
  status: "the status",
  petId: "a pet's id",
};

const EXAMPLE: Partial<Record<WordedField, string>> = { categoryId: "3", petId: "42" };

function characters(text: string): number {
  return [...text].length;
}

function statusList(): string {
  return `${PET_STATUSES.slice(0, -1).join(", ")} or ${PET_STATUSES.at(-1)}`;
}

/** An integer's problem: not one at all, written with leading zeros, or out of range. */
function integerSentence(field: WordedField, value: unknown): { rule: string; echo: boolean } {
  const subject = SUBJECT[field];
  const example = EXAMPLE[field] ?? "1";
  const digits = typeof value === "bigint" ? value.toString() : String(value);
  if (!/^-?[0-9]+$/.test(digits)) {
    return { rule: `${subject} is a whole number, like ${example}`, echo: true };
  }
  if (/^-?0[0-9]/.test(digits)) {
    return { rule: `${subject} is written without leading zeros, like ${example}`, echo: true };
  }
  return BigInt(digits) > INT64_MAX
    ? { rule: `${subject} is at most ${INT64_MAX}`, echo: true }
    : { rule: `${subject} is at least ${INT64_MIN}`, echo: true };
}

function sentenceParts(field: WordedField, value: unknown): { rule: string; echo: boolean } {
  if (field === "categoryId" || field === "petId") return integerSentence(field, value);
  if (field === "status") return { rule: `${SUBJECT.status} is ${statusList()}`, echo: true };
  const name = String(value);
  if (name === "") return { rule: "the name can't be empty", echo: false };
  if (name.trim() === "") return { rule: "the name can't be only spaces", echo: false };
  const length = characters(name);
  return {
    rule: `the name is at most ${NAME_MAX_LENGTH} characters; this one has ${length}`,
    echo: false,
  };
}

/**
 * The sentence for a value the schema refused, starting lower-case: "the
 * category id is a whole number, like 3". With `echo`, the value given is
 * named after it (`, not "abc"`), where that helps.
 */
export function wrongValueSentence(field: WordedField, value: unknown, echo: boolean): string {
  const { rule, echo: helps } = sentenceParts(field, value);
  if (!echo || !helps) return rule;
  const text = typeof value === "string" ? value : String(value);
  const cut = text.length > 40 ? text.slice(0, 37) : text;
  const shown = typeof value === "string" && !/^-?[0-9]+$/.test(value) ? JSON.stringify(cut) : cut;
  return `${rule}, not ${shown}${cut === text ? "" : "..."}`;
}

/** The sentence as a sentence: "The category id is a whole number, like 3". */
export function capitalized(sentence: string): string {
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}
