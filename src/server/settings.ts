/**
 * A setting of the fake is one zod schema whose checks carry the words a bad
 * value gets (`must be an integer from 0 to 100000`); the `petstore serve` flag,
 * the `startServer` option, the control-plane body and the admin document are
 * all made from it (docs/design.md, "One schema per setting"). `check` turns
 * zod's issues into problems that name the field, say what it takes and what
 * was given; unknown fields are named with the fields allowed there, read from
 * the schema's JSON Schema (zod's public form).
 */
import * as z from "zod/mini";
import { describeValue } from "../schema/validate.js";
import { ServerConfigError } from "./config-error.js";

export type Checked<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/**
 * Words by path, for schemas whose own words are not those wanted; "" is the
 * whole value, `*` any element of an array (`pets.*.id`).
 */
export type Rules = Record<string, string>;

type Schema = z.ZodMiniType;

/** An integer from `min` to `max`, every check of it with the same words. */
export function integer(
  min: number,
  max: number,
  rule = `must be an integer from ${min} to ${max}`,
) {
  return z.int({ error: rule }).check(z.gte(min, { error: rule }), z.lte(max, { error: rule }));
}

export interface Setting<S extends Schema = Schema> {
  /** The value as the library option and the admin body take it; null is the default. */
  schema: S;
  flag: {
    name: string;
    /** What the flag's text must be, when its syntax differs from the JSON value's. */
    rule?: string;
    /** The flag's text as a candidate value, which the schema then decides on. */
    read(text: string): unknown;
  };
}

export function setting<S extends Schema>(definition: Setting<S>): Setting<S> {
  return definition;
}

/** The value of a flag, checked by the setting's own schema. */
export function readFlag<S extends Schema>(
  setting: Setting<S>,
  text: string,
): NonNullable<z.output<S>> {
  const parsed = setting.schema.safeParse(setting.flag.read(text));
  if (parsed.success && parsed.data != null) return parsed.data as NonNullable<z.output<S>>;
  const rule = setting.flag.rule ?? parsed.error?.issues[0]?.message;
  throw new ServerConfigError(`${setting.flag.name} ${rule}; got ${JSON.stringify(text)}`);
}

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

/** The fields of the object schema at `path`, read from its JSON Schema. */
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
  rules: Rules = {},
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
        ? (rules[""] ?? issue.message)
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
