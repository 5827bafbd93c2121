/**
 * Every option of `startServer`, flag of `petstore serve` and body of the control
 * plane is checked by a zod schema whose checks carry the words a bad value gets
 * (zod's `error` parameter): `check` names the field (or option), says what it
 * takes and what was given (never a key or a token). A rule ("must be ...")
 * follows the name; any other sentence, a colon.
 */
import * as z from "zod/mini";
import { describeValue } from "../schema/validate.js";

export type Checked<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** An integer from `min` to `max`, every check of it with the same words. */
export function integer(
  min: number,
  max: number,
  rule = `must be an integer from ${min} to ${max}`,
) {
  return z.int({ error: rule }).check(z.gte(min, { error: rule }), z.lte(max, { error: rule }));
}

/**
 * A closed object: `rule` is what a value that is not such an object is told (it
 * names its subject); an unknown field is told the fields there are.
 */
export function strict<S extends z.core.$ZodLooseShape>(shape: S, rule: string) {
  return z.strictObject(shape, {
    error: (issue) => (issue.code === "unrecognized_keys" ? Object.keys(shape).join(", ") : rule),
  });
}

/** A value that has `method`, as the library's hooks (clock, log, store) must. */
export const withMethod = <T>(method: string, rule: string) =>
  z.custom<T>((value) => typeof (value as Record<string, unknown>)?.[method] === "function", {
    error: rule,
  });

/** Fields whose value is a secret, never repeated. */
const SECRETS = new Set<PropertyKey | undefined>(["key", "adminToken"]);

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** One issue in words; `name`: how the path is named ("" for the whole value). */
export function describeIssue(
  issue: z.core.$ZodIssue,
  input: unknown,
  kind: string,
  name = issue.path.join("."),
): string {
  if (issue.code === "unrecognized_keys") {
    const article = /^[aeiou]/.test(kind) ? "an" : "a";
    const where = name === "" ? "" : ` of ${name}`;
    const allowed =
      issue.message === "" ? `it takes no ${kind}s` : `${kind}s${where}: ${issue.message}`;
    const named = (key: string) => (name === "" ? key : `${name}.${key}`);
    return issue.keys
      .map((key) => `${named(key)} is not ${article} ${kind}; ${allowed}`)
      .join("; ");
  }
  const given = valueAt(input, issue.path);
  if (given === undefined && name !== "") return `${name} is required`;
  if (issue.code === "custom" && !issue.message.startsWith("must")) {
    return name === "" ? issue.message : `${name}: ${issue.message}`;
  }
  const shown = typeof given === "function" ? "a function" : describeValue(given);
  const got = SECRETS.has(issue.path.at(-1)) ? "" : `; got ${shown}`;
  return `${name === "" ? "" : `${name} `}${issue.message}${got}`;
}

/** The value as `schema` gives it, or what is wrong with it, one problem per field. */
export function check<T>(schema: z.ZodMiniType<T>, input: unknown, kind = "field"): Checked<T> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  const byPath = new Map<string, string>();
  for (const issue of result.error.issues) {
    const at = issue.path.join(".");
    if (!byPath.has(at)) byPath.set(at, describeIssue(issue, input, kind));
  }
  return { ok: false, problems: [...byPath.values()] };
}

/**
 * A body from the lossless parser as zod reads it: integers (bigint there) become
 * numbers; beyond 2^53 they lose digits, which only ever makes them fail a range.
 */
export function plainJson(value: unknown): unknown {
  const numbers = (_: string, item: unknown) => (typeof item === "bigint" ? Number(item) : item);
  return JSON.parse(JSON.stringify(value, numbers));
}
