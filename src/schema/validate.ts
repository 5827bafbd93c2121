/**
 * Validation with messages a person can act on: each problem names the field and
 * says what is allowed and what was given. zod decides *whether* a value is valid;
 * the wording comes from the rule of the field, so server and client say the same.
 */
import type * as z from "zod/mini";
import { quoted } from "./json.js";
import {
  INT64_MAX,
  INT64_MIN,
  LIMIT_MAX,
  LIMIT_MIN,
  ListQuery,
  NAME_MAX_LENGTH,
  NewPet,
  PET_STATUSES,
  StoredPet,
  PetIdParam,
  type ListQuery as ListQueryType,
} from "./pet.js";

export interface Problem {
  /** The field, query parameter or argument at fault (`body` for the whole body). */
  field: string;
  /** What is wrong, without the field name: "must be one of ...; got ...". */
  problem: string;
}

export type Validated<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

const RULES: Record<string, string> = {
  name: `must be a non-blank string of at most ${NAME_MAX_LENGTH} characters`,
  categoryId: `must be an integer from ${INT64_MIN} to ${INT64_MAX} (a JSON number, not a string)`,
  id: `must be an integer from ${INT64_MIN} to ${INT64_MAX}`,
  status: `must be one of ${PET_STATUSES.join(", ")}`,
  limit: `must be an integer from ${LIMIT_MIN} to ${LIMIT_MAX}`,
  petId: `must be an integer from ${INT64_MIN} to ${INT64_MAX}`,
};

const INEXACT_INTEGER = `must be written as plain digits beyond ${Number.MAX_SAFE_INTEGER} in size: with a fraction or exponent such an integer cannot be read exactly`;

/** A short, unambiguous rendering of a value a client sent. */
export function describeValue(value: unknown): string {
  if (typeof value === "string") {
    const shown = quoted(value);
    return /^-?[0-9]+(\.[0-9]+)?$/.test(value) ? `the string ${shown}` : shown;
  }
  if (value === undefined) return "nothing";
  if (value === null || typeof value !== "object") return String(value);
  return Array.isArray(value) ? "an array" : "an object";
}

/** `input` against an object schema: its value, or a problem per field at fault. */
function validateFields<Shape extends z.core.$ZodLooseShape>(
  schema: z.ZodMiniObject<Shape>,
  input: Record<string, unknown>,
  /** Query parameters are always text: quoted, without "the string". */
  what: "field" | "query parameter",
): Validated<z.output<typeof schema>> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  const problems: Problem[] = [];
  for (const issue of result.error.issues) {
    if (issue.code === "unrecognized_keys") {
      const problem = `unknown ${what}; allowed: ${Object.keys(schema.shape).join(", ")}`;
      problems.push(...issue.keys.map((field) => ({ field, problem })));
      continue;
    }
    const field = String(issue.path[0] ?? "body");
    if (problems.some((p) => p.field === field)) continue;
    const given = Object.hasOwn(input, field) ? input[field] : undefined;
    let problem = `${RULES[field] ?? "is not valid"}; got `;
    if (given === undefined) {
      problem = "is required";
    } else if (
      typeof given === "number" &&
      Number.isInteger(given) &&
      !Number.isSafeInteger(given)
    ) {
      problem = INEXACT_INTEGER;
    } else if (field === "name" && typeof given === "string" && given.length > NAME_MAX_LENGTH) {
      // Characters as JSON Schema's maxLength counts them: code points, not UTF-16 units.
      problem += `${[...given].length} characters`;
    } else {
      problem +=
        what !== "field" && typeof given === "string" ? quoted(given) : describeValue(given);
    }
    problems.push({ field, problem });
  }
  return { ok: false, problems };
}

/** A request body against NewPet (`body`), or a pet of the fake's data file against StoredPet (`pet`). */
function validateObject<Shape extends z.core.$ZodLooseShape>(
  schema: z.ZodMiniObject<Shape>,
  input: unknown,
  field: string,
  required: string,
): Validated<z.output<typeof schema>> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    const problem = `must be a JSON object with ${required}; got ${describeValue(input)}`;
    return { ok: false, problems: [{ field, problem }] };
  }
  return validateFields(schema, input as Record<string, unknown>, "field");
}

/** A request body (already parsed by `parseJson`) against NewPet. */
export function validateNewPet(input: unknown) {
  return validateObject(NewPet, input, "body", "name and categoryId");
}

/**
 * A pet of the fake's data file (parsed by `parseJson`): a NewPet with its `id`, an
 * integer written as plain digits, or none (the fake gives it the next).
 */
export function validateStoredPet(input: unknown) {
  return validateObject(StoredPet, input, "pet", "id, name and categoryId");
}

/**
 * Query parameters of `GET /pets` (or the flags that become them), as strings.
 * A parameter given twice is a problem, not a silent pick.
 */
export function validateListQuery(params: Iterable<[string, string]>): Validated<ListQueryType> {
  const input: Record<string, string> = Object.create(null);
  const problems: Problem[] = [];
  for (const [key, value] of params) {
    if (!Object.hasOwn(input, key)) input[key] = value;
    else if (!problems.some((p) => p.field === key)) {
      problems.push({ field: key, problem: "is given more than once" });
    }
  }
  const result = validateFields(ListQuery, input, "query parameter");
  if (problems.length === 0) return result;
  if (!result.ok) problems.push(...result.problems);
  return { ok: false, problems };
}

/** A pet id from a URL path or a command-line argument. */
export function validatePetId(text: string): Validated<bigint> {
  const result = PetIdParam.safeParse(text);
  if (result.success) return { ok: true, value: result.data };
  const problem = `${RULES.petId}; got ${quoted(text)}`;
  return { ok: false, problems: [{ field: "petId", problem }] };
}

/** "name is required; categoryId must be ..." */
export function formatProblems(problems: readonly Problem[]): string {
  return problems.map((p) => `${p.field} ${p.problem}`).join("; ");
}
