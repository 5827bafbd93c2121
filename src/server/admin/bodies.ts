/**
 * The JSON the control plane takes and answers, as zod schemas with their words:
 * the routes check bodies with them (strictly: an unknown field or a wrong type
 * is a 400 naming the field), and its OpenAPI document's schemas are made from
 * them (openapi.ts), under the names given here. Answers are plain objects, so a
 * client does not break on a field added later. The request journal's entries
 * are described in request-journal.ts, the fault settings in ../faults.ts, a
 * new key in ../keys.ts.
 */
import * as z from "zod/mini";
import { strict } from "../check.js";
import { FaultsAnswer, FaultSettings } from "../faults.js";
import { KeyFields, PLAN } from "../keys.js";
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

/** No body, or `{}`. */
export const NoFields = z.optional(
  strict({}, "POST /__admin/reset takes no fields: send no body, or {}"),
);

const SECONDS_RULE = `must be a number of seconds from 0 to ${MAX_ADVANCE_SECONDS} (the clock only moves forward)`;
/** A step of the clock: the body of `POST /__admin/clock`, and of the library's clock.advance(). */
export const ClockBody = named(
  "AdvanceClock",
  strict(
    {
      advanceSeconds: z
        .number({ error: SECONDS_RULE })
        .check(
          z.gte(0, { error: SECONDS_RULE }),
          z.lte(MAX_ADVANCE_SECONDS, { error: SECONDS_RULE }),
        ),
    },
    'the body must be a JSON object {"advanceSeconds": N}',
  ),
);

export const FaultsBody = named(
  "FaultsUpdate",
  described(
    FaultSettings,
    "Replaces every setting; an omitted one takes its default (none, 0, 503, random).",
  ),
);

export const KeyBody = named("NewKey", KeyFields);
