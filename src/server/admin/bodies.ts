/**
 * The JSON bodies the control plane takes, checked strictly (unknown fields and
 * wrong types are a 400 naming the field), and turned into the server's own
 * values: `POST /__admin/clock`, `POST /__admin/keys` (`PUT /__admin/faults`:
 * ../settings/faults.ts).
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
import { MAX_ADVANCE_SECONDS } from "./clock.js";
import { check, type Checked, type Rules } from "../settings.js";

/** A step of the clock: the body's field and the argument of the library's clock.advance(). */
export const AdvanceSeconds = z.number().check(z.gte(0), z.lte(MAX_ADVANCE_SECONDS));
export const ClockBody = z.strictObject({ advanceSeconds: AdvanceSeconds });
const CLOCK_RULES: Rules = {
  "": 'the body must be a JSON object {"advanceSeconds": N}',
  advanceSeconds: `must be a number of seconds from 0 to ${MAX_ADVANCE_SECONDS} (the clock only moves forward)`,
};

export function parseClockBody(body: unknown): Checked<number> {
  const checked = check(ClockBody, body, CLOCK_RULES);
  return checked.ok ? { ok: true, value: checked.value.advanceSeconds } : checked;
}

const MAX_PER_MINUTE = 999_999_999;
const MAX_PER_DAY = 9_999_999_999;

export const KeyBody = z.strictObject({
  key: z.string().check(z.minLength(1), z.maxLength(MAX_KEY_LENGTH), z.regex(KEY_PATTERN)),
  plan: z._default(z.enum(PLAN_NAMES as [PlanName, ...PlanName[]]), "free"),
  perMinute: z.optional(
    z.int().check(z.gte(1), z.lte(MAX_PER_MINUTE), z.describe("enterprise only, with perDay")),
  ),
  perDay: z.optional(
    z.int().check(z.gte(1), z.lte(MAX_PER_DAY), z.describe("enterprise only, with perMinute")),
  ),
});
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

export function parseKeyBody(body: unknown): Checked<ApiKeySpec> {
  const checked = check(KeyBody, body, KEY_RULES);
  return checked.ok ? keyFromParts(checked.value, "the key") : checked;
}
