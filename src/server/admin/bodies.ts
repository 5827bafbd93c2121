/**
 * The JSON bodies the control plane takes, checked strictly (unknown fields and
 * wrong types are a 400 naming the field), and turned into the server's own
 * values: `POST /__admin/clock`, `PUT /__admin/faults`, `POST /__admin/keys`.
 */
import * as z from "zod/mini";
import { ServerConfigError } from "../config-error.js";
import { FAIL_MODES, MAX_LATENCY_MS, type FaultOptions } from "../faults.js";
import {
  KEY_PATTERN,
  MAX_KEY_LENGTH,
  PLAN_NAMES,
  parseKeySpec,
  type ApiKeySpec,
  type PlanName,
} from "../keys.js";
import { MAX_ADVANCE_SECONDS } from "./clock.js";
import { check, type Checked, type Rules } from "./validation.js";

const ClockBody = z.strictObject({
  advanceSeconds: z.number().check(z.gte(0), z.lte(MAX_ADVANCE_SECONDS)),
});
const CLOCK_RULES: Rules = {
  "": 'the body must be a JSON object {"advanceSeconds": N}',
  advanceSeconds: `must be a number of seconds from 0 to ${MAX_ADVANCE_SECONDS} (the clock only moves forward)`,
};

export function parseClockBody(body: unknown): Checked<number> {
  const checked = check(ClockBody, body, CLOCK_RULES);
  return checked.ok ? { ok: true, value: checked.value.advanceSeconds } : checked;
}

const LatencyMs = z.int().check(z.gte(0), z.lte(MAX_LATENCY_MS));
export const MAX_FAULT_SEED = 0xffffffff;

const FaultsBody = z.strictObject({
  latencyMs: z.optional(
    z.nullable(
      z.strictObject({ min: LatencyMs, max: LatencyMs }).check(
        z.refine((latency) => latency.max >= latency.min, {
          message: "must be at least latencyMs.min",
          path: ["max"],
        }),
      ),
    ),
  ),
  failRate: z.optional(z.number().check(z.gte(0), z.lte(1))),
  failMode: z.optional(z.enum(FAIL_MODES)),
  seed: z.optional(z.nullable(z.int().check(z.gte(0), z.lte(MAX_FAULT_SEED)))),
});
const LATENCY_RULE = `must be an integer of milliseconds from 0 to ${MAX_LATENCY_MS}`;
const FAULTS_RULES: Rules = {
  "": 'the body must be a JSON object such as {"latencyMs": {"min": 0, "max": 0}, "failRate": 0, "failMode": "503"}',
  latencyMs: 'must be null (no delay) or {"min": ms, "max": ms}',
  "latencyMs.min": LATENCY_RULE,
  "latencyMs.max": `${LATENCY_RULE}, at least latencyMs.min`,
  failRate: "must be a number from 0 to 1",
  failMode: `must be one of ${FAIL_MODES.join(", ")}`,
  seed: `must be null (a random sequence) or an integer from 0 to ${MAX_FAULT_SEED}`,
};

/**
 * `PUT /__admin/faults` replaces every setting: an omitted one takes its default
 * (no latency, fail rate 0, mode 503, a random seed), as an omitted flag does.
 */
export function parseFaultsBody(body: unknown): Checked<FaultOptions> {
  const checked = check(FaultsBody, body, FAULTS_RULES);
  if (!checked.ok) return checked;
  const { latencyMs, failRate, failMode, seed } = checked.value;
  const options: FaultOptions = {};
  if (latencyMs != null) options.latency = { minMs: latencyMs.min, maxMs: latencyMs.max };
  if (failRate !== undefined) options.failRate = failRate;
  if (failMode !== undefined) options.failMode = failMode;
  if (seed != null) options.seed = seed;
  return { ok: true, value: options };
}

/** The settings as `GET /__admin/faults` shows them. */
export function faultsJson(options: FaultOptions) {
  return {
    latencyMs: { min: options.latency?.minMs ?? 0, max: options.latency?.maxMs ?? 0 },
    failRate: options.failRate ?? 0,
    failMode: options.failMode ?? "503",
    seed: options.seed ?? null,
  };
}

export const MAX_PER_MINUTE = 999_999_999;
export const MAX_PER_DAY = 9_999_999_999;

const KeyBody = z.strictObject({
  key: z.string().check(z.minLength(1), z.maxLength(MAX_KEY_LENGTH), z.regex(KEY_PATTERN)),
  plan: z.optional(z.enum(PLAN_NAMES as [PlanName, ...PlanName[]])),
  perMinute: z.optional(z.int().check(z.gte(1), z.lte(MAX_PER_MINUTE))),
  perDay: z.optional(z.int().check(z.gte(1), z.lte(MAX_PER_DAY))),
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
