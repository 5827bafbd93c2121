/**
 * API keys of the fake and their plans. One schema checks a key in each of its
 * forms: the spec `key[:plan[:perMinute/perDay]]` of `--key`, `--keys-file` and
 * `PETSTORE_SERVE_KEYS` (`abc`, `abc:pro`, `abc:enterprise:600/20000`), the
 * body of `POST /__admin/keys`, and the `keys` option and `addKey()` of the
 * library (a spec, or `{key, plan?, limits?}`). Keys are RFC 6750 b64token
 * characters, so `:` and `,` can separate fields and specs.
 */
import { randomBytes } from "node:crypto";
import * as z from "zod/mini";
import { check, integer, strict, type Checked } from "./check.js";

export interface WindowLimits {
  perMinute: number;
  perDay: number;
}

/** The plans of the spec; enterprise is custom, unlimited unless limits are given. */
export const PLAN_LIMITS = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
  enterprise: null,
} as const satisfies Record<string, WindowLimits | null>;

export type PlanName = keyof typeof PLAN_LIMITS;
const PLAN_NAMES = Object.keys(PLAN_LIMITS) as [PlanName, ...PlanName[]];
export const PLAN = z.enum(PLAN_NAMES, { error: `must be one of ${PLAN_NAMES.join(", ")}` });

export interface ApiKeySpec {
  key: string;
  plan: PlanName;
  /** null: unlimited. */
  limits: WindowLimits | null;
}

/** `min` to 512 RFC 6750 b64token characters (then optional `=`): a key, or an admin token. */
export function b64token(min: number) {
  const rule = `must be ${min} to 512 of the characters A-Z a-z 0-9 - . _ ~ + / (then optional =)`;
  const pattern = new RegExp(`^[A-Za-z0-9\\-._~+/]{${min},512}=*$`);
  return z.string({ error: rule }).check(z.regex(pattern, { error: rule }));
}

const SPEC = "key[:plan[:perMinute/perDay]]";

function describeLimits(limits: WindowLimits | null): string {
  return limits === null ? "no limits" : `${limits.perMinute}/min and ${limits.perDay}/day`;
}

/** A key in fields, as `POST /__admin/keys` takes it (custom limits: enterprise only). */
export const KeyFields = z.pipe(
  strict(
    {
      key: b64token(1),
      plan: z._default(PLAN, "free"),
      perMinute: z.optional(integer(1, 999_999_999)),
      perDay: z.optional(integer(1, 9_999_999_999)),
    },
    'the body must be a JSON object such as {"key": "ci", "plan": "pro"}',
  ).check(
    z.superRefine(({ plan, perMinute, perDay }, context) => {
      const problem =
        (perMinute === undefined) !== (perDay === undefined)
          ? "perMinute and perDay go together: give both or neither"
          : perMinute === undefined || perDay === undefined
            ? undefined
            : plan !== "enterprise"
              ? `custom limits are for the enterprise plan only; ${plan} has ${describeLimits(PLAN_LIMITS[plan])}`
              : perDay < perMinute
                ? "the per-day limit is below the per-minute limit"
                : undefined;
      if (problem !== undefined)
        context.issues.push({ code: "custom", message: problem, input: plan });
    }),
  ),
  z.transform(({ key, plan, perMinute, perDay }): ApiKeySpec => ({
    key,
    plan,
    limits: perMinute === undefined ? PLAN_LIMITS[plan] : { perMinute, perDay: perDay! },
  })),
);

/** A spec's fields, or what is wrong with its form. */
function specFields(spec: string): Checked<unknown> {
  const [key, plan, limits, ...rest] = spec.trim().split(":");
  const [, perMinute, perDay] = /^([0-9]{1,10})\/([0-9]{1,10})$/.exec(limits ?? "") ?? [];
  const problem =
    rest.length > 0
      ? `expected ${SPEC}`
      : limits !== undefined && perDay === undefined
        ? `limits must be perMinute/perDay, e.g. 600/20000; got ${JSON.stringify(limits)}`
        : undefined;
  if (problem !== undefined) return { ok: false, problems: [problem] };
  const fields = { key, plan: plan ? plan.toLowerCase() : undefined };
  return {
    ok: true,
    value: perDay ? { ...fields, perMinute: Number(perMinute), perDay: Number(perDay) } : fields,
  };
}

/** The library's object form: limits that are the plan's own are no custom limits. */
const KeyObject = z.pipe(
  strict(
    {
      key: z.string(),
      plan: z.optional(PLAN),
      limits: z.optional(z.nullable(z.object({ perMinute: z.int(), perDay: z.int() }))),
    },
    `must be a ${SPEC} or {key, plan?, limits?}`,
  ),
  z.transform(({ key, plan = "free", limits }) => {
    const own = limits == null || describeLimits(limits) === describeLimits(PLAN_LIMITS[plan]);
    return { key, plan, ...(own ? {} : limits) };
  }),
);

/** A key of the library: a spec or `{key, plan?, limits?}` (as `running.keys` gives them). */
export const KeyInput = z.pipe(
  z.union([z.string(), z.custom<z.input<typeof KeyObject>>((value) => typeof value === "object")], {
    error: `must be a ${SPEC} or {key, plan?, limits?}`,
  }),
  z.transform((input, context) => {
    const fields = typeof input === "string" ? specFields(input) : check(KeyObject, input);
    const checked = fields.ok ? check(KeyFields, fields.value) : fields;
    if (checked.ok) return checked.value;
    context.issues.push({ code: "custom", message: checked.problems.join("; "), input });
    return z.NEVER;
  }),
);

/**
 * The keys of the library and of `serve` (none: one generated free key); a key
 * given twice must be the same.
 */
export const KeyList = z.pipe(
  z.array(KeyInput, { error: `must be an array of key specs (${SPEC}) or {key, plan?, limits?}` }),
  z.transform((specs, context) => {
    const byKey = new Map<string, ApiKeySpec>();
    for (const spec of specs) {
      const seen = byKey.get(spec.key);
      if (seen === undefined) byKey.set(spec.key, spec);
      else if (
        seen.plan !== spec.plan ||
        describeLimits(seen.limits) !== describeLimits(spec.limits)
      ) {
        const message = "the same key is given twice with different plans or limits";
        context.issues.push({ code: "custom", message, input: specs });
      }
    }
    if (byKey.size > 0) return [...byKey.values()];
    // A fresh free-plan key, 192 random bits.
    return [KeyInput.parse("psk_" + randomBytes(24).toString("base64url"))];
  }),
);
