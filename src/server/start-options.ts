/**
 * The options of `startServer()` and the arguments of the RunningServer's control
 * methods, checked with zod: an unknown or mistyped option throws a
 * ServerConfigError naming it (`startServer: faults.failRate must be a number
 * from 0 to 1; got 2`) rather than being ignored. The faults, the journal's size
 * and the ban policy are settings (./settings/), with their own schemas and words.
 * Ranges with messages of their own (port, seed, maxConnections) are checked by
 * startServer itself.
 */
import * as z from "zod/mini";
import { INT64_MAX, INT64_MIN, PET_STATUSES, type Pet } from "../schema/pet.js";
import { formatProblems, validateNewPet } from "../schema/validate.js";
import { ADMIN_TOKEN_PATTERN, ADMIN_TOKEN_RULE } from "./admin/access.js";
import { AdvanceSeconds, keyFromParts } from "./admin/bodies.js";
import { MAX_ADVANCE_SECONDS } from "./admin/clock.js";
import { parseFilters } from "./admin/filters.js";
import type { JournalFilter } from "./admin/request-journal.js";
import { ServerConfigError } from "./config-error.js";
import { parseKeySpec, PLAN_LIMITS, PLAN_NAMES, type ApiKeySpec, type PlanName } from "./keys.js";
import { rulesOf } from "./settings/setting.js";
import { check, type Rules } from "./settings/validation.js";
import {
  faultOptionRules,
  FaultOptionSchema,
  faultSettingsOf,
  type FaultSettings,
} from "./settings/faults.js";
import { banAfter, banMs, journalSize } from "./settings/serve.js";

const int = (min: number, max: number) => z.int().check(z.gte(min), z.lte(max));
const withMethod = (method: string) =>
  z.custom<object>(
    (value) =>
      typeof value === "object" &&
      value !== null &&
      typeof (value as Record<string, unknown>)[method] === "function",
  );

const Plan = z.enum(PLAN_NAMES as [PlanName, ...PlanName[]]);
const KeyInput = z.union([
  z.string(),
  z.strictObject({
    key: z.string(),
    plan: z.optional(Plan),
    limits: z.optional(z.nullable(z.strictObject({ perMinute: z.int(), perDay: z.int() }))),
  }),
]);
type KeyInput = z.infer<typeof KeyInput>;

const Integer = z.union([z.bigint(), z.int()]);
const PetInput = z.strictObject({
  id: Integer,
  name: z.string(),
  categoryId: Integer,
  status: z.optional(z.enum(PET_STATUSES)),
});

/** The schema of every option of startServer, by name (server.ts checks none is missing). */
export const START_OPTION_SHAPE = {
  file: z.optional(z.string().check(z.minLength(1))),
  store: z.optional(withMethod("listJson")),
  seed: z.optional(z.number()),
  pets: z.optional(z.array(PetInput)),
  port: z.optional(z.number()),
  host: z.optional(z.string().check(z.minLength(1))),
  keys: z.optional(z.array(KeyInput)),
  clock: z.optional(withMethod("now")),
  quiet: z.optional(z.boolean()),
  log: z.optional(withMethod("write")),
  faults: z.optional(FaultOptionSchema),
  ban: z.optional(
    z.strictObject({
      banAfter: z.optional(banAfter.schema),
      banMs: z.optional(banMs.schema),
    }),
  ),
  timeouts: z.optional(
    z.strictObject({
      headersTimeoutMs: z.optional(int(1, 3_600_000)),
      requestTimeoutMs: z.optional(int(1, 3_600_000)),
      keepAliveTimeoutMs: z.optional(int(1, 3_600_000)),
      checkIntervalMs: z.optional(int(1, 3_600_000)),
      shutdownTimeoutMs: z.optional(int(0, 3_600_000)),
    }),
  ),
  maxConnections: z.optional(z.number()),
  journalSize: z.optional(journalSize.schema),
  adminToken: z.optional(z.string().check(z.regex(ADMIN_TOKEN_PATTERN))),
  // Checked by startServer with messages of their own (normalizeCors, checkTlsOption).
  cors: z.optional(z.unknown()),
  tls: z.optional(z.unknown()),
};

const OPTION_RULES: Rules = {
  "": "the options must be an object",
  file: "must be a path (a non-empty string)",
  store: "must be a PetStore (listJson, getJson, create, reset, close)",
  seed: "must be a number",
  pets: "must be an array of pets {id, name, categoryId, status?}",
  port: "must be a number",
  host: "must be an address (a non-empty string)",
  keys: "must be an array of key specs (key[:plan[:perMinute/perDay]]) or {key, plan?, limits?}",
  "keys.*": `must be a key spec (key[:plan[:perMinute/perDay]]) or {key, plan?, limits?} with plan one of ${PLAN_NAMES.join(", ")}`,
  "pets.*.id": "must be an integer (a number or a bigint)",
  "pets.*.categoryId": "must be an integer (a number or a bigint)",
  "pets.*.name": "must be a string",
  "pets.*.status": `must be one of ${PET_STATUSES.join(", ")}`,
  clock: "must be an object with now(), milliseconds since the Unix epoch",
  quiet: "must be true or false",
  log: "must be an object with write(text)",
  ban: "must be {banAfter?, banMs?}",
  timeouts: "must be an object of timeouts in milliseconds",
  maxConnections: "must be a number",
  adminToken: ADMIN_TOKEN_RULE,
  ...faultOptionRules("faults"),
  ...rulesOf({ journalSize }),
  ...rulesOf({ banAfter, banMs }, "ban"),
};
for (const name of [
  "headersTimeoutMs",
  "requestTimeoutMs",
  "keepAliveTimeoutMs",
  "checkIntervalMs",
  "shutdownTimeoutMs",
]) {
  OPTION_RULES[`timeouts.${name}`] = "must be an integer of milliseconds up to 3600000";
}

function fail(label: string, problems: readonly string[]): never {
  throw new ServerConfigError(`${label}: ${problems.join("; ")}`);
}

/** A checker of options of type T: every key of T must have a schema in `shape`. */
export function optionsChecker<T>(shape: Record<keyof T, z.ZodMiniType>, label: string) {
  const schema = z.strictObject(shape as Record<string, z.ZodMiniType>);
  return (options: unknown): void => {
    const checked = check(schema, options, OPTION_RULES, "option");
    if (!checked.ok) fail(label, checked.problems);
  };
}

/** Keys given to startServer or addKey: a spec string, or an object checked like POST /__admin/keys. */
export function keySpecOf(input: unknown, label: string): ApiKeySpec {
  const checked = check(KeyInput, input, {
    "": `${label} takes a key spec (key[:plan[:perMinute/perDay]]) or {key, plan?, limits?}`,
  });
  if (!checked.ok) fail(label, checked.problems);
  return toKeySpec(checked.value, label);
}

function toKeySpec(input: KeyInput, where: string): ApiKeySpec {
  if (typeof input === "string") return parseKeySpec(input, where);
  const checked = keyFromParts({ key: input.key, plan: input.plan, ...customLimits(input) }, where);
  if (!checked.ok) fail(where, checked.problems);
  return checked.value;
}

/** Limits that are the plan's own (as startServer's `keys` returns them) are no custom limits. */
function customLimits(input: {
  plan?: PlanName;
  limits?: { perMinute: number; perDay: number } | null;
}) {
  const plan = input.plan ?? "free";
  const standard = PLAN_LIMITS[plan];
  const limits = input.limits;
  if (limits == null) return {};
  if (
    standard !== null &&
    limits.perMinute === standard.perMinute &&
    limits.perDay === standard.perDay
  ) {
    return {};
  }
  return { perMinute: limits.perMinute, perDay: limits.perDay };
}

/** The pets of `startServer({ pets })`, each checked as a pet with an id. */
export function petsOf(pets: ReadonlyArray<z.infer<typeof PetInput>>): Pet[] {
  return pets.map((input, index) => {
    const id = BigInt(input.id);
    const { id: _, ...fields } = { ...input, categoryId: BigInt(input.categoryId) };
    const checked = validateNewPet(fields);
    const problems = checked.ok ? [] : [formatProblems(checked.problems)];
    if (id < INT64_MIN || id > INT64_MAX)
      problems.unshift(`id must be an integer from ${INT64_MIN} to ${INT64_MAX}`);
    if (!checked.ok || problems.length > 0)
      fail("startServer", [`pets[${index}]: ${problems.join("; ")}`]);
    return { id, ...checked.value };
  });
}

export function checkFaults(input: unknown, label: string): FaultSettings {
  const checked = check(FaultOptionSchema, input, faultOptionRules(""), "option");
  if (!checked.ok) fail(label, checked.problems);
  return faultSettingsOf(checked.value, label);
}

export function checkAdvance(seconds: unknown): number {
  const checked = AdvanceSeconds.safeParse(seconds);
  if (!checked.success) {
    fail("clock.advance", [
      `seconds must be a number from 0 to ${MAX_ADVANCE_SECONDS} (the clock only moves forward); got ${String(seconds)}`,
    ]);
  }
  return checked.data;
}

const Filter = z.strictObject({
  method: z.optional(z.string()),
  path: z.optional(z.string()),
  status: z.optional(z.union([z.int(), z.string()])),
  since: z.optional(z.union([z.date(), z.number(), z.string()])),
  after: z.optional(z.int()),
  limit: z.optional(z.int()),
});

/** `requests(filter)`: the same filters as GET /__admin/requests, as an object. */
export function checkFilter(input: unknown): JournalFilter {
  const checked = check(
    Filter,
    input ?? {},
    {
      "": "requests() takes an object {method?, path?, status?, since?, after?, limit?}",
      method: 'must be a string such as "POST"',
      path: "must be a string",
      status: 'must be a status (404) or a class ("4xx")',
      since: "must be a Date, Unix milliseconds or an ISO 8601 string",
      after: "must be a request id (a whole number)",
      limit: "must be a whole number",
    },
    "option",
  );
  if (!checked.ok) fail("requests", checked.problems);
  const pairs = Object.entries(checked.value)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]): [string, string] => [
      name,
      value instanceof Date ? String(value.getTime()) : String(value),
    ]);
  const parsed = parseFilters(pairs);
  if (!parsed.ok) fail("requests", parsed.problems);
  return parsed.value;
}
