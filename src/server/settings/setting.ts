/**
 * A setting of the fake, described once: its zod schema (type, limits and the
 * description the control plane's OpenAPI document shows), the words a bad
 * value gets, and how its `petstore serve` flag is read. The flag, the
 * `startServer` option, the control-plane body and the admin document are all
 * made from it (see docs/design.md, "One schema per setting").
 */
import type * as z from "zod/mini";
import { ServerConfigError } from "../config-error.js";
import type { Rules } from "./validation.js";

export interface Setting<S extends z.ZodMiniType = z.ZodMiniType> {
  /** The value as the library option and the admin body take it; null is the default. */
  schema: S;
  /** What a bad value is told, by path inside the setting ("" is the setting itself). */
  rules: Rules;
  flag: {
    name: string;
    /** What the flag's text must be (its syntax may differ from the JSON value's). */
    rule: string;
    /** The flag's text as a candidate value, which the schema then decides on. */
    read(text: string): unknown;
  };
}

export function setting<S extends z.ZodMiniType>(definition: Setting<S>): Setting<S> {
  return definition;
}

/** The value of a flag, checked by the setting's own schema. */
export function readFlag<S extends z.ZodMiniType>(
  setting: Setting<S>,
  text: string,
): NonNullable<z.output<S>> {
  const parsed = setting.schema.safeParse(setting.flag.read(text));
  if (!parsed.success || parsed.data == null) {
    throw new ServerConfigError(
      `${setting.flag.name} ${setting.flag.rule}; got ${JSON.stringify(text)}`,
    );
  }
  return parsed.data as NonNullable<z.output<S>>;
}

/** The rules of every setting of a group, by the path of its field (`latencyMs.min`). */
export function rulesOf(settings: Record<string, Setting>, prefix = ""): Rules {
  const rules: Rules = {};
  for (const [name, { rules: own }] of Object.entries(settings)) {
    for (const [path, rule] of Object.entries(own)) {
      rules[[prefix, name, path].filter((part) => part !== "").join(".")] = rule;
    }
  }
  return rules;
}
