/**
 * The JSON the control plane takes and answers, as zod schemas: the routes check
 * bodies with them (strictly: an unknown field or a wrong type is a 400 naming
 * the field), and its OpenAPI document's schemas are made from them (openapi.ts),
 * under the names given here. Answers are plain objects, so a client does not
 * break on a field added later. The request journal's entries are described in
 * request-journal.ts, the fault settings in ../settings/faults.ts.
 */
import * as z from "zod/mini";
import { ServerConfigError } from "../config-error.js";
import {
  KEY_PATTERN,
  MAX_KEY_LENGTH,
  PLAN_NAMES,
  parseKeySpec,
  type ApiKeySpec,
  type PlanName,
} from "../keys.js";
import { FaultsAnswer, FaultSettings, parseFaultsBody } from "../faults.js";
import { check, type Checked, type Rules } from "../settings.js";
import { MAX_ADVANCE_SECONDS } from "./clock.js";

/** The schemas the document names in its components. */
export const ADMIN_SCHEMAS = z.registry<{ id: string }>();

export function named<S extends z.ZodMiniType>(id: string, schema: S): S {
  ADMIN_SCHEMAS.add(schema, { id });
  return schema;
}

export const described = <S extends z.ZodMiniType>(schema: S, description: string): S =>
  schema.check(z.describe(description)) as S;

export const count = () => z.int().check(z.gte(0));
export const PLAN = z.enum(PLAN_NAMES as [PlanName, ...PlanName[]]);

export const ErrorAnswer = named(
  "Error",
  z.object({
    code: z.string(),
    message: z.string(),
    status: z.int().check(z.gte(400), z.lte(599)),
  }),
);

export const ClockAnswer = named(
  "Clock",
  z.object({ now: z.iso.datetime(), nowMs: count(), offsetSeconds: z.number().check(z.gte(0)) }),
);
export type ClockState = z.infer<typeof ClockAnswer>;

export const Faults = named("Faults", FaultsAnswer);

/**
 * A key as `GET /__admin/keys` shows it: redacted, with where its binding window stands.
 * The schema and its type have two names: the package exports the type alone.
 */
export const KeyEntryAnswer = named(
  "KeyEntry",
  z.object({
    key: described(z.string(), "Redacted, as `petstore auth status` shows keys."),
    plan: PLAN,
    limit: described(count(), "Of the window that binds first; 2147483647 when unlimited."),
    remaining: count(),
    reset: described(count(), "Unix seconds."),
    perMinute: described(z.nullable(z.int().check(z.gte(1))), "null: unlimited."),
    perDay: z.nullable(z.int().check(z.gte(1))),
  }),
);
export type KeyEntry = z.infer<typeof KeyEntryAnswer>;

/** A body a route takes: its schema, and how it is checked (`optional`: no body is fine too). */
export interface Body<T> {
  schema: z.ZodMiniType;
  parse(value: unknown): Checked<T>;
  optional?: boolean;
}

const NoFields = z.strictObject({});
export const RESET_BODY: Body<unknown> = {
  schema: NoFields,
  optional: true,
  parse: (value) =>
    value === undefined || NoFields.safeParse(value).success
      ? { ok: true, value }
      : { ok: false, problems: ["POST /__admin/reset takes no fields: send no body, or {}"] },
};

/** A step of the clock: the body's field and the argument of the library's clock.advance(). */
export const AdvanceSeconds = z.number().check(z.gte(0), z.lte(MAX_ADVANCE_SECONDS));
const ClockBody = named("AdvanceClock", z.strictObject({ advanceSeconds: AdvanceSeconds }));
const CLOCK_RULES: Rules = {
  "": 'the body must be a JSON object {"advanceSeconds": N}',
  advanceSeconds: `must be a number of seconds from 0 to ${MAX_ADVANCE_SECONDS} (the clock only moves forward)`,
};
export const CLOCK_BODY: Body<number> = {
  schema: ClockBody,
  parse(value) {
    const checked = check(ClockBody, value, CLOCK_RULES);
    return checked.ok ? { ok: true, value: checked.value.advanceSeconds } : checked;
  },
};

export const FAULTS_BODY: Body<FaultSettings> = {
  schema: named(
    "FaultsUpdate",
    described(
      FaultSettings,
      "Replaces every setting; an omitted one takes its default (none, 0, 503, random).",
    ),
  ),
  parse: parseFaultsBody,
};

const MAX_PER_MINUTE = 999_999_999;
const MAX_PER_DAY = 9_999_999_999;

const KeyBody = named(
  "NewKey",
  z.strictObject({
    key: z.string().check(z.minLength(1), z.maxLength(MAX_KEY_LENGTH), z.regex(KEY_PATTERN)),
    plan: z._default(PLAN, "free"),
    perMinute: z.optional(
      z.int().check(z.gte(1), z.lte(MAX_PER_MINUTE), z.describe("enterprise only, with perDay")),
    ),
    perDay: z.optional(
      z.int().check(z.gte(1), z.lte(MAX_PER_DAY), z.describe("enterprise only, with perMinute")),
    ),
  }),
);
const KEY_RULES: Rules = {
  "": 'the body must be a JSON object such as {"key": "ci", "plan": "pro"}',
  key: `must be 1 to ${MAX_KEY_LENGTH} of the characters A-Z a-z 0-9 - . _ ~ + / (then optional =)`,
  plan: `must be one of ${PLAN_NAMES.join(", ")}`,
  perMinute: `must be an integer from 1 to ${MAX_PER_MINUTE}`,
  perDay: `must be an integer from 1 to ${MAX_PER_DAY}`,
};

/** A key from its parts, with the rules of `--key` (custom limits for enterprise only). */
export function keyFromParts(
  parts: { key: string; plan?: PlanName; perMinute?: number; perDay?: number },
  where: string,
): Checked<ApiKeySpec> {
  const { key, plan = "free", perMinute, perDay } = parts;
  if ((perMinute === undefined) !== (perDay === undefined)) {
    return { ok: false, problems: ["perMinute and perDay go together: give both or neither"] };
  }
  try {
    const limits = perMinute === undefined ? "" : `:${perMinute}/${perDay}`;
    return { ok: true, value: parseKeySpec(`${key}:${plan}${limits}`, where) };
  } catch (error) {
    if (!(error instanceof ServerConfigError)) throw error;
    return { ok: false, problems: [error.message] };
  }
}

export const KEY_BODY: Body<ApiKeySpec> = {
  schema: KeyBody,
  parse(value) {
    const checked = check(KeyBody, value, KEY_RULES);
    return checked.ok ? keyFromParts(checked.value, "the key") : checked;
  },
};
