/**
 * Fault injection, for testing clients against a misbehaving service: its
 * settings and the injector. Faults apply to the pet operations (`/v1/pets`,
 * `/v1/pets/{petId}`) once a request has passed authentication and rate
 * limiting; 401, 429, 404, 405 and the OpenAPI document are never faulted. A
 * seed makes the sequence of faults repeatable.
 *
 * Each setting is described once (settings.ts). Every way in takes
 * the same fields, limits and words: the `--latency`, `--fail-rate`,
 * `--fail-mode` and `--fault-seed` flags, the `faults` option of startServer
 * and `setFaults()`, the body of `PUT /__admin/faults`, and the schemas of the
 * control plane's OpenAPI document. Latency is `latencyMs: {min, max}`
 * everywhere; the library also takes its old `latency: {minMs, maxMs}`.
 */
import { randomInt } from "node:crypto";
import * as z from "zod/mini";
import { readWholeNumber } from "../schema/whole-number.js";
import { ServerConfigError } from "./config-error.js";
import { seededRandom } from "./seeded-random.js";
import { check, integer, readFlag, setting, type Checked } from "./settings.js";

const FAIL_MODES = ["503", "reset", "reset-after"] as const;
/**
 * `503`: answer 503 with Retry-After. `reset`: destroy the connection before the
 * request is processed. `reset-after`: process it (a POST really creates the pet),
 * then destroy the connection without answering: the client cannot know the outcome.
 */
export type FailMode = (typeof FAIL_MODES)[number];
const MAX_LATENCY_MS = 600_000;
const MAX_FAULT_SEED = 0xffffffff;

const MS_RULE = `must be an integer of milliseconds from 0 to ${MAX_LATENCY_MS}`;
const MAX_RULE = `${MS_RULE}, at least latencyMs.min`;

/** The delay of the pet operations, uniform in [min, max] milliseconds. */
const LatencyRange = z
  .strictObject(
    {
      min: integer(0, MAX_LATENCY_MS, MS_RULE).check(
        z.describe("The shortest delay, in milliseconds."),
      ),
      max: integer(0, MAX_LATENCY_MS, MAX_RULE).check(
        z.describe("The longest delay, in milliseconds; at least min."),
      ),
    },
    { error: 'must be null (no delay) or {"min": ms, "max": ms}' },
  )
  .check(z.refine((latency) => latency.max >= latency.min, { message: MAX_RULE, path: ["max"] }));

const latencyMs = setting({
  schema: z
    .nullable(LatencyRange)
    .check(z.describe("Delay before each pet operation, uniform in [min, max]; null: none.")),
  flag: {
    name: "--latency",
    rule: `must be <ms> or <min>-<max> with 0 <= min <= max <= ${MAX_LATENCY_MS}`,
    read: (text) => {
      const match = /^\s*([0-9]{1,6})(?:\s*-\s*([0-9]{1,6}))?\s*$/.exec(text);
      return match ? { min: Number(match[1]), max: Number(match[2] ?? match[1]) } : undefined;
    },
  },
});

const RATE_RULE = "must be a number from 0 to 1";
const failRate = setting({
  schema: z
    .number({ error: RATE_RULE })
    .check(
      z.gte(0, { error: RATE_RULE }),
      z.lte(1, { error: RATE_RULE }),
      z.describe("The share of pet operations that fail, 0 to 1."),
    ),
  flag: {
    name: "--fail-rate",
    read: (text) => {
      const trimmed = text.trim();
      return /^(?:[0-9]+\.?[0-9]*|\.[0-9]+)$/.test(trimmed) ? Number(trimmed) : undefined;
    },
  },
});

const failMode = setting({
  schema: z
    .enum(FAIL_MODES, { error: `must be one of ${FAIL_MODES.join(", ")}` })
    .check(
      z.describe(
        "How a failing operation fails: 503 (with Retry-After), reset (the connection " +
          "closed before it is processed), reset-after (processed, then closed unanswered).",
      ),
    ),
  flag: { name: "--fail-mode", read: (text) => text.trim().toLowerCase() },
});

const SEED_RULE = `an integer from 0 to ${MAX_FAULT_SEED}`;
const seed = setting({
  schema: z
    .nullable(integer(0, MAX_FAULT_SEED, `must be null (a random sequence) or ${SEED_RULE}`))
    .check(z.describe("Makes the sequence of faults repeatable; null: a random one.")),
  flag: { name: "--fault-seed", rule: `must be ${SEED_RULE}`, read: readWholeNumber },
});

/** Each fault setting by its one field name. */
export const FAULT_SETTINGS = { latencyMs, failRate, failMode, seed };

/** The fault settings; an omitted (or null) one takes its default: none, 0, 503, random. */
export const FaultSettings = z.strictObject(
  {
    latencyMs: z.optional(latencyMs.schema),
    failRate: z.optional(failRate.schema),
    failMode: z.optional(failMode.schema),
    seed: z.optional(seed.schema),
  },
  { error: "must be an object {latencyMs?, failRate?, failMode?, seed?}" },
);
export type FaultSettings = z.infer<typeof FaultSettings>;

/** The settings as `GET /__admin/faults` answers them: every one, defaults filled in. */
export const FaultsAnswer = z.object({
  latencyMs: LatencyRange,
  failRate: failRate.schema,
  failMode: failMode.schema,
  seed: seed.schema,
});

export function faultsAnswer(settings: FaultSettings): z.infer<typeof FaultsAnswer> {
  return {
    latencyMs: settings.latencyMs ?? { min: 0, max: 0 },
    failRate: settings.failRate ?? 0,
    failMode: settings.failMode ?? "503",
    seed: settings.seed ?? null,
  };
}

/** `PUT /__admin/faults` replaces every setting, as the library's setFaults() does. */
export function parseFaultsBody(body: unknown): Checked<FaultSettings> {
  return check(FaultSettings, body, {
    "": 'the body must be a JSON object such as {"latencyMs": {"min": 0, "max": 0}, "failRate": 0, "failMode": "503"}',
  });
}

const OLD_MAX_RULE = `must be an integer from latency.minMs to ${MAX_LATENCY_MS}`;

/** The `faults` option: the settings, or `latency: {minMs, maxMs}`, its old name, still taken. */
export const FaultOptionSchema = z.extend(FaultSettings, {
  latency: z.optional(
    z
      .strictObject(
        {
          minMs: integer(0, MAX_LATENCY_MS),
          maxMs: integer(0, MAX_LATENCY_MS, OLD_MAX_RULE),
        },
        { error: `must be {minMs, maxMs}, milliseconds from 0 to ${MAX_LATENCY_MS}` },
      )
      .check(
        z.describe("The old name of latencyMs, as {minMs, maxMs}."),
        z.refine((latency) => latency.maxMs >= latency.minMs, {
          message: OLD_MAX_RULE,
          path: ["maxMs"],
        }),
      ),
  ),
});
export type FaultOptions = z.input<typeof FaultOptionSchema>;

/** A checked `faults` option as the settings: `latency` becomes latencyMs. */
export function faultSettingsOf(
  options: z.output<typeof FaultOptionSchema>,
  where: string,
): FaultSettings {
  const { latency, ...settings } = options;
  if (latency === undefined) return settings;
  if (settings.latencyMs !== undefined) {
    throw new ServerConfigError(`${where}: give latencyMs or latency (its old name), not both`);
  }
  return { ...settings, latencyMs: { min: latency.minMs, max: latency.maxMs } };
}

/** The flags of `petstore serve` that were given, as settings. */
export function faultsFromFlags(flags: {
  latency?: string;
  failRate?: string;
  failMode?: string;
  faultSeed?: string;
}): FaultSettings | undefined {
  const faults: FaultSettings = {};
  if (flags.latency !== undefined) faults.latencyMs = readFlag(latencyMs, flags.latency);
  if (flags.failRate !== undefined) faults.failRate = readFlag(failRate, flags.failRate);
  if (flags.failMode !== undefined) faults.failMode = readFlag(failMode, flags.failMode);
  if (flags.faultSeed !== undefined) faults.seed = readFlag(seed, flags.faultSeed);
  if (faults.failMode !== undefined && faults.failRate === undefined) {
    throw new ServerConfigError("--fail-mode needs --fail-rate (the share of requests that fail)");
  }
  return Object.keys(faults).length > 0 ? faults : undefined;
}

/** What happens to a faultable request: a delay, then maybe a failure. */
export interface FaultPlan {
  delayMs: number;
  failure: FailMode | undefined;
}

/**
 * The plan of each next faultable request (one draw each, in a fixed order), or
 * undefined when no setting would ever change a request.
 */
export function faultInjector(settings: FaultSettings): (() => FaultPlan) | undefined {
  const random = seededRandom(settings.seed ?? randomInt(0, 2 ** 32));
  const minMs = settings.latencyMs?.min ?? 0;
  const spanMs = (settings.latencyMs?.max ?? minMs) - minMs;
  const failRate = settings.failRate ?? 0;
  const failMode = settings.failMode ?? "503";
  if (failRate === 0 && minMs === 0 && spanMs === 0) return undefined;
  return () => {
    const failure = failRate > 0 && random() < failRate ? failMode : undefined;
    const delayMs = spanMs > 0 ? minMs + Math.floor(random() * (spanMs + 1)) : minMs;
    return { delayMs, failure };
  };
}
