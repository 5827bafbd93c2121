/**
 * zod decides whether a control-plane body or a library option is valid; the
 * wording comes from a table of rules by path (`latencyMs.min`), so each problem
 * names the field, says what it takes and what was given. Unknown fields are
 * named with the fields allowed there, read from the schema's JSON Schema.
 */
import * as z from "zod/mini";
import { describeValue } from "../../schema/validate.js";

export type Checked<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** What each path must be; "" is the whole value, `*` any element of an array (`pets.*.id`). */
export type Rules = Record<string, string>;

type Schema = z.ZodMiniType;

function describe(value: unknown): string {
  return typeof value === "function" ? "a function" : describeValue(value);
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    if (!Object.prototype.hasOwnProperty.call(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

type JsonSchema = {
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
};

/** The fields of the object schema at `path`, read from its JSON Schema (zod's public form). */
function fieldsAt(schema: Schema, path: readonly PropertyKey[]): string[] {
  const objectIn = (json: JsonSchema | undefined): JsonSchema | undefined =>
    json?.anyOf?.find((member) => member.properties !== undefined || member.items !== undefined) ??
    json;
  let current = objectIn(
    z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema,
  );
  for (const key of path) {
    current = objectIn(
      typeof key === "number" ? current?.items : current?.properties?.[String(key)],
    );
  }
  return Object.keys(current?.properties ?? {});
}

/** The rule of a path: `pets.3.id` has the rule of `pets.*.id`. */
function ruleOf(rules: Rules, path: readonly PropertyKey[]): string | undefined {
  return rules[path.map((key) => (typeof key === "number" ? "*" : String(key))).join(".")];
}

/** `kind` names the keys in messages: "field" for bodies, "option" for the library. */
export function check<T>(
  schema: z.ZodMiniType<T>,
  input: unknown,
  rules: Rules,
  kind = "field",
): Checked<T> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const issue of result.error.issues) {
    const at = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      const allowed = fieldsAt(schema, issue.path).join(", ");
      for (const key of issue.keys) {
        const name = at === "" ? key : `${at}.${key}`;
        problems.push(
          `${name} is not ${kind === "option" ? "an" : "a"} ${kind}; ${kind}s${at === "" ? "" : ` of ${at}`}: ${allowed}`,
        );
      }
      continue;
    }
    if (seen.has(at)) continue;
    seen.add(at);
    const given = at === "" ? input : valueAt(input, issue.path);
    // The rule of the whole value ("") names its subject itself.
    const rule =
      at === ""
        ? (rules[""] ?? "the value is not valid")
        : `${at} ${ruleOf(rules, issue.path) ?? issue.message}`;
    problems.push(
      given === undefined
        ? `${at === "" ? "a value" : at} is required`
        : `${rule}; got ${describe(given)}`,
    );
  }
  return { ok: false, problems };
}

/**
 * A body from the lossless parser as zod reads it: integers (bigint there) become
 * numbers; beyond 2^53 they lose digits, which only ever makes them fail a range.
 */
export function plainJson(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(plainJson);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plainJson(item)]));
  }
  return value;
}
