/**
 * Fault injection, for testing clients against a misbehaving service: its
 * settings and the injector. Faults apply to the pet operations (`/v1/pets`,
 * `/v1/pets/{petId}`) once a request has passed authentication and rate
 * limiting; 401, 429, 404, 405 and the OpenAPI document are never faulted. A
 * seed makes the sequence of faults repeatable.
 *
 * The settings are one schema, with their words: the body of `PUT
 * /__admin/faults`, the `faults` option and `setFaults()` (which also take
 * `latency: {minMs, maxMs}`, the old name of `latencyMs`), the flags (read into
 * it by serve-options.ts) and the control plane's document all use it.
 */
import { randomInt } from "node:crypto";
import * as z from "zod/mini";
import { integer, strict } from "./check.js";
import { seededRandom } from "./seeded-random.js";

/**
 * `503`: answer 503 with Retry-After. `reset`: destroy the connection before the
 * request is processed. `reset-after`: process it (a POST really creates the pet),
 * then destroy the connection without answering: the client cannot know the outcome.
 */
const FAIL_MODES = ["503", "reset", "reset-after"] as const;
export const MAX_LATENCY_MS = 600_000;
export const MAX_FAULT_SEED = 0xffffffff;

const MS_RULE = `must be an integer of milliseconds from 0 to ${MAX_LATENCY_MS}`;
const MAX_RULE = `${MS_RULE}, at least latencyMs.min`;
const RATE_RULE = "must be a number from 0 to 1";
const SEED_RULE = `must be null (a random sequence) or an integer from 0 to ${MAX_FAULT_SEED}`;

/** The delay of the pet operations, uniform in [min, max] milliseconds. */
export const LatencyRange = strict(
  { min: integer(0, MAX_LATENCY_MS, MS_RULE), max: integer(0, MAX_LATENCY_MS, MAX_RULE) },
  'must be null (no delay) or {"min": ms, "max": ms}',
).check(z.refine((latency) => latency.max >= latency.min, { message: MAX_RULE, path: ["max"] }));

const SHAPE = {
  latencyMs: z.optional(z.nullable(LatencyRange)),
  failRate: z.optional(
    z
      .number({ error: RATE_RULE })
      .check(z.gte(0, { error: RATE_RULE }), z.lte(1, { error: RATE_RULE })),
  ),
  failMode: z.optional(z.enum(FAIL_MODES, { error: `must be one of ${FAIL_MODES.join(", ")}` })),
  seed: z.optional(z.nullable(integer(0, MAX_FAULT_SEED, SEED_RULE))),
};

/** Every setting, an omitted (or null) one its default: none, 0, 503, random. */
const filled = ({ latencyMs, failRate, failMode, seed }: z.output<typeof Settings>) => ({
  latencyMs: latencyMs ?? { min: 0, max: 0 },
  failRate: failRate ?? 0,
  failMode: failMode ?? "503",
  seed: seed ?? null,
});

const Settings = strict(
  SHAPE,
  'the body must be a JSON object such as {"latencyMs": {"min": 0, "max": 0}, "failRate": 0, "failMode": "503"}',
);
/** The fault settings, as `PUT /__admin/faults` takes them and `GET` answers them. */
export const FaultSettings = z.pipe(Settings, z.transform(filled));
export type FaultSettings = z.output<typeof FaultSettings>;

const OLD_MAX_RULE = `must be an integer from latency.minMs to ${MAX_LATENCY_MS}`;

/** The `faults` option and `setFaults()`: the settings, or `latency: {minMs, maxMs}`, its old name. */
export const FaultOption = z.pipe(
  strict(
    {
      ...SHAPE,
      latency: z.optional(
        strict(
          { minMs: integer(0, MAX_LATENCY_MS), maxMs: integer(0, MAX_LATENCY_MS, OLD_MAX_RULE) },
          `must be {minMs, maxMs}, milliseconds from 0 to ${MAX_LATENCY_MS}`,
        ).check(
          z.refine((latency) => latency.maxMs >= latency.minMs, {
            message: OLD_MAX_RULE,
            path: ["maxMs"],
          }),
        ),
      ),
    },
    "the faults must be an object {latencyMs?, failRate?, failMode?, seed?}",
  ),
  z.transform(({ latency, ...settings }, context): FaultSettings => {
    if (latency === undefined) return filled(settings);
    if (settings.latencyMs !== undefined) {
      const message = "give latencyMs or latency (its old name), not both";
      context.issues.push({ code: "custom", message, input: latency });
    }
    return filled({ ...settings, latencyMs: { min: latency.minMs, max: latency.maxMs } });
  }),
);
export type FaultOptions = z.input<typeof FaultOption>;

/**
 * The plan of each next faultable request, a delay then maybe a failure (one draw
 * each, in a fixed order), or undefined when no setting would ever change a request.
 */
export function faultInjector(settings: FaultSettings) {
  const { latencyMs, failRate, failMode, seed } = settings;
  const random = seededRandom(seed ?? randomInt(0, 2 ** 32));
  const minMs = latencyMs.min;
  const spanMs = latencyMs.max - minMs;
  if (failRate === 0 && latencyMs.max === 0) return undefined;
  return () => {
    const failure = failRate > 0 && random() < failRate ? failMode : undefined;
    const delayMs = spanMs > 0 ? minMs + Math.floor(random() * (spanMs + 1)) : minMs;
    return { delayMs, failure };
  };
}
