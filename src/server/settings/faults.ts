/**
 * The fault settings, each described once (./setting.ts). Every way in takes
 * the same fields, limits and words: the `--latency`, `--fail-rate`,
 * `--fail-mode` and `--fault-seed` flags, the `faults` option of startServer
 * and `setFaults()`, the body of `PUT /__admin/faults`, and the schemas of the
 * control plane's OpenAPI document. Latency is `latencyMs: {min, max}`
 * everywhere; the library also takes its old `latency: {minMs, maxMs}`.
 */
import * as z from "zod/mini";
import { readWholeNumber } from "../../schema/whole-number.js";
import { ServerConfigError } from "../config-error.js";
import { check, type Checked, type Rules } from "./validation.js";
import { readFlag, rulesOf, setting } from "./setting.js";

const FAIL_MODES = ["503", "reset", "reset-after"] as const;
/**
 * `503`: answer 503 with Retry-After. `reset`: destroy the connection before the
 * request is processed. `reset-after`: process it (a POST really creates the pet),
 * then destroy the connection without answering: the client cannot know the outcome.
 */
export type FailMode = (typeof FAIL_MODES)[number];
const MAX_LATENCY_MS = 600_000;
const MAX_FAULT_SEED = 0xffffffff;

const milliseconds = (description: string) =>
  z.int().check(z.gte(0), z.lte(MAX_LATENCY_MS), z.describe(description));

/** The delay of the pet operations, uniform in [min, max] milliseconds. */
const LatencyRange = z
  .strictObject({
    min: milliseconds("The shortest delay, in milliseconds."),
    max: milliseconds("The longest delay, in milliseconds; at least min."),
  })
  .check(
    z.refine((latency) => latency.max >= latency.min, {
      message: "must be at least latencyMs.min",
      path: ["max"],
    }),
  );

const MS_RULE = `must be an integer of milliseconds from 0 to ${MAX_LATENCY_MS}`;
const latencyMs = setting({
  schema: z
    .nullable(LatencyRange)
    .check(z.describe("Delay before each pet operation, uniform in [min, max]; null: none.")),
  rules: {
    "": 'must be null (no delay) or {"min": ms, "max": ms}',
    min: MS_RULE,
    max: `${MS_RULE}, at least latencyMs.min`,
  },
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
    .number()
    .check(z.gte(0), z.lte(1), z.describe("The share of pet operations that fail, 0 to 1.")),
  rules: { "": RATE_RULE },
  flag: {
    name: "--fail-rate",
    rule: RATE_RULE,
    read: (text) => {
      const trimmed = text.trim();
      return /^(?:[0-9]+\.?[0-9]*|\.[0-9]+)$/.test(trimmed) ? Number(trimmed) : undefined;
    },
  },
});

const MODE_RULE = `must be one of ${FAIL_MODES.join(", ")}`;
const failMode = setting({
  schema: z
    .enum(FAIL_MODES)
    .check(
      z.describe(
        "How a failing operation fails: 503 (with Retry-After), reset (the connection " +
          "closed before it is processed), reset-after (processed, then closed unanswered).",
      ),
    ),
  rules: { "": MODE_RULE },
  flag: { name: "--fail-mode", rule: MODE_RULE, read: (text) => text.trim().toLowerCase() },
});

const SEED_RULE = `an integer from 0 to ${MAX_FAULT_SEED}`;
const seed = setting({
  schema: z
    .nullable(z.int().check(z.gte(0), z.lte(MAX_FAULT_SEED)))
    .check(z.describe("Makes the sequence of faults repeatable; null: a random one.")),
  rules: { "": `must be null (a random sequence) or ${SEED_RULE}` },
  flag: { name: "--fault-seed", rule: `must be ${SEED_RULE}`, read: readWholeNumber },
});

/** Each fault setting by its one field name. */
export const FAULT_SETTINGS = { latencyMs, failRate, failMode, seed };

/** The fault settings; an omitted (or null) one takes its default: none, 0, 503, random. */
export const FaultSettings = z.strictObject({
  latencyMs: z.optional(latencyMs.schema),
  failRate: z.optional(failRate.schema),
  failMode: z.optional(failMode.schema),
  seed: z.optional(seed.schema),
});
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

const FAULT_RULES = rulesOf(FAULT_SETTINGS);

/** `PUT /__admin/faults` replaces every setting, as the library's setFaults() does. */
export function parseFaultsBody(body: unknown): Checked<FaultSettings> {
  return check(FaultSettings, body, {
    "": 'the body must be a JSON object such as {"latencyMs": {"min": 0, "max": 0}, "failRate": 0, "failMode": "503"}',
    ...FAULT_RULES,
  });
}

/** The `latency: {minMs, maxMs}` the library took before latencyMs; still taken. */
const OldLatency = z.strictObject({
  minMs: z.int().check(z.gte(0), z.lte(MAX_LATENCY_MS)),
  maxMs: z.int().check(z.gte(0), z.lte(MAX_LATENCY_MS)),
});
const OLD_LATENCY_RULES: Rules = {
  latency: `must be {minMs, maxMs}, milliseconds from 0 to ${MAX_LATENCY_MS}`,
  "latency.minMs": `must be an integer from 0 to ${MAX_LATENCY_MS}`,
  "latency.maxMs": `must be an integer from latency.minMs to ${MAX_LATENCY_MS}`,
};

/** The `faults` option: the settings, or `latency` under its old name. */
export const FaultOptionSchema = z.extend(FaultSettings, {
  latency: z.optional(
    OldLatency.check(
      z.describe("The old name of latencyMs, as {minMs, maxMs}."),
      z.refine((latency) => latency.maxMs >= latency.minMs, {
        message: "must be at least latency.minMs",
        path: ["maxMs"],
      }),
    ),
  ),
});
export type FaultOptions = z.input<typeof FaultOptionSchema>;

/** Rules of the option at `prefix` (`faults` in startServer's options, "" for setFaults). */
export function faultOptionRules(prefix: string): Rules {
  const rules: Rules = {
    "": "the faults must be an object {latencyMs?, failRate?, failMode?, seed?}",
    ...FAULT_RULES,
    ...OLD_LATENCY_RULES,
  };
  return Object.fromEntries(
    Object.entries(rules).map(([path, rule]) => [
      [prefix, path].filter((part) => part !== "").join("."),
      rule,
    ]),
  );
}

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
