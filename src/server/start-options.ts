/**
 * The options of `startServer()` and the arguments of the RunningServer's control
 * methods, checked with zod: an unknown or mistyped option throws a
 * ServerConfigError naming it (`startServer: faults.failRate must be a number
 * from 0 to 1; got 2`) rather than being ignored. The settings that are also
 * `serve` flags (the faults in faults.ts, and the port, demo pets, journal size
 * and ban policy here) are one schema each, with their words (settings.ts).
 */
import * as z from "zod/mini";
import { INT64_MAX, INT64_MIN, PET_STATUSES, type Pet } from "../schema/pet.js";
import { formatProblems, validateNewPet } from "../schema/validate.js";
import { readWholeNumber } from "../schema/whole-number.js";
import { ADMIN_TOKEN_PATTERN, ADMIN_TOKEN_RULE } from "./admin/access.js";
import { AdvanceSeconds, keyFromParts } from "./admin/bodies.js";
import { MAX_ADVANCE_SECONDS } from "./admin/clock.js";
import { parseFilters } from "./admin/filters.js";
import type { JournalFilter } from "./admin/request-journal.js";
import { ServerConfigError } from "./config-error.js";
import { MAX_JOURNAL_SIZE } from "./serve-defaults.js";
import { FaultOptionSchema, faultSettingsOf, type FaultSettings } from "./faults.js";
import { parseKeySpec, PLAN_LIMITS, PLAN_NAMES, type ApiKeySpec, type PlanName } from "./keys.js";
import { check, integer, setting } from "./settings.js";

/** Demo pets a new store may start with (`--seed`). */
export const MAX_SEED_PETS = 1_000_000;
const MAX_BAN_SECONDS = 86_400;
const MS_UP_TO_AN_HOUR = "must be an integer of milliseconds up to 3600000";

export const port = setting({
  schema: integer(0, 65535),
  flag: { name: "--port", read: readWholeNumber },
});
export const seed = setting({
  schema: integer(0, MAX_SEED_PETS),
  flag: { name: "--seed", read: readWholeNumber },
});
export const journalSize = setting({
  schema: integer(
    0,
    MAX_JOURNAL_SIZE,
    `must be an integer from 0 (no journal) to ${MAX_JOURNAL_SIZE}`,
  ),
  flag: {
    name: "--journal-size",
    rule: `must be an integer from 0 to ${MAX_JOURNAL_SIZE}`,
    read: readWholeNumber,
  },
});
export const banAfter = setting({
  schema: integer(0, 1_000_000),
  flag: { name: "--ban-after", read: readWholeNumber },
});
/** The flag counts seconds, the option milliseconds: one schema, read from either. */
export const banMs = setting({
  schema: integer(
    0,
    MAX_BAN_SECONDS * 1000,
    `must be an integer of milliseconds from 0 to ${MAX_BAN_SECONDS * 1000}`,
  ),
  flag: {
    name: "--ban-seconds",
    rule: `must be an integer from 0 to ${MAX_BAN_SECONDS}`,
    read: (text) => readWholeNumber(text) * 1000,
  },
});

const withMethod = (method: string, error: string) =>
  z.custom<object>(
    (value) =>
      typeof value === "object" &&
      value !== null &&
      typeof (value as Record<string, unknown>)[method] === "function",
    { error },
  );

const KEY_SPEC = "key spec (key[:plan[:perMinute/perDay]]) or {key, plan?, limits?}";
const KeyInput = z.union(
  [
    z.string(),
    z.strictObject({
      key: z.string(),
      plan: z.optional(z.enum(PLAN_NAMES as [PlanName, ...PlanName[]])),
      limits: z.optional(z.nullable(z.strictObject({ perMinute: z.int(), perDay: z.int() }))),
    }),
  ],
  { error: `must be a ${KEY_SPEC} with plan one of ${PLAN_NAMES.join(", ")}` },
);
type KeyInput = z.infer<typeof KeyInput>;

const INTEGER = "must be an integer (a number or a bigint)";
const Integer = z.union([z.bigint(), z.int()], { error: INTEGER });
const PetInput = z.strictObject({
  id: Integer,
  name: z.string({ error: "must be a string" }),
  categoryId: Integer,
  status: z.optional(z.enum(PET_STATUSES, { error: `must be one of ${PET_STATUSES.join(", ")}` })),
});

const timeout = (min: number) => z.optional(integer(min, 3_600_000, MS_UP_TO_AN_HOUR));

/** The schema of every option of startServer, by name (server.ts checks none is missing). */
export const START_OPTION_SHAPE = {
  file: z.optional(
    z.string().check(z.minLength(1, { error: "must be a path (a non-empty string)" })),
  ),
  store: z.optional(
    withMethod("listJson", "must be a PetStore (listJson, getJson, create, reset, close)"),
  ),
  seed: z.optional(seed.schema),
  pets: z.optional(
    z.array(PetInput, { error: "must be an array of pets {id, name, categoryId, status?}" }),
  ),
  port: z.optional(port.schema),
  host: z.optional(
    z.string().check(z.minLength(1, { error: "must be an address (a non-empty string)" })),
  ),
  keys: z.optional(
    z.array(KeyInput, {
      error:
        "must be an array of key specs (key[:plan[:perMinute/perDay]]) or {key, plan?, limits?}",
    }),
  ),
  clock: z.optional(
    withMethod("now", "must be an object with now(), milliseconds since the Unix epoch"),
  ),
  quiet: z.optional(z.boolean({ error: "must be true or false" })),
  log: z.optional(withMethod("write", "must be an object with write(text)")),
  faults: z.optional(FaultOptionSchema),
  ban: z.optional(
    z.strictObject(
      { banAfter: z.optional(banAfter.schema), banMs: z.optional(banMs.schema) },
      { error: "must be {banAfter?, banMs?}" },
    ),
  ),
  timeouts: z.optional(
    z.strictObject(
      {
        headersTimeoutMs: timeout(1),
        requestTimeoutMs: timeout(1),
        keepAliveTimeoutMs: timeout(1),
        checkIntervalMs: timeout(1),
        shutdownTimeoutMs: timeout(0),
      },
      { error: "must be an object of timeouts in milliseconds" },
    ),
  ),
  // Checked by startServer with words of its own ("the connection cap must be...").
  maxConnections: z.optional(z.number({ error: "must be a number" })),
  journalSize: z.optional(journalSize.schema),
  adminToken: z.optional(
    z
      .string({ error: ADMIN_TOKEN_RULE })
      .check(z.regex(ADMIN_TOKEN_PATTERN, { error: ADMIN_TOKEN_RULE })),
  ),
  cors: z.optional(
    z.union([z.boolean(), z.array(z.string())], {
      error: "must be true (any origin), false (off) or a list of origins",
    }),
  ),
  // Checked by startServer with words of its own (checkTlsOption).
  tls: z.optional(z.unknown()),
};

function fail(label: string, problems: readonly string[]): never {
  throw new ServerConfigError(`${label}: ${problems.join("; ")}`);
}

/** A checker of options of type T: every key of T must have a schema in `shape`. */
export function optionsChecker<T>(shape: Record<keyof T, z.ZodMiniType>, label: string) {
  const schema = z.strictObject(shape as Record<string, z.ZodMiniType>);
  return (options: unknown): void => {
    const checked = check(schema, options, { "": "the options must be an object" }, "option");
    if (!checked.ok) fail(label, checked.problems);
  };
}

/** Keys given to startServer or addKey: a spec string, or an object checked like POST /__admin/keys. */
export function keySpecOf(input: unknown, label: string): ApiKeySpec {
  const checked = check(KeyInput, input, { "": `${label} takes a ${KEY_SPEC}` });
  if (!checked.ok) fail(label, checked.problems);
  const key = checked.value;
  if (typeof key === "string") return parseKeySpec(key, label);
  // Limits that are the plan's own (as startServer's `keys` returns them) are no custom limits.
  const standard = PLAN_LIMITS[key.plan ?? "free"];
  const limits =
    key.limits == null ||
    (standard !== null &&
      key.limits.perMinute === standard.perMinute &&
      key.limits.perDay === standard.perDay)
      ? {}
      : key.limits;
  const spec = keyFromParts({ key: key.key, plan: key.plan, ...limits }, label);
  if (!spec.ok) fail(label, spec.problems);
  return spec.value;
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
  const checked = check(
    FaultOptionSchema,
    input,
    { "": "the faults must be an object {latencyMs?, failRate?, failMode?, seed?}" },
    "option",
  );
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

const Filter = z.strictObject(
  {
    method: z.optional(z.string({ error: 'must be a string such as "POST"' })),
    path: z.optional(z.string({ error: "must be a string" })),
    status: z.optional(
      z.union([z.int(), z.string()], { error: 'must be a status (404) or a class ("4xx")' }),
    ),
    since: z.optional(
      z.union([z.date(), z.number(), z.string()], {
        error: "must be a Date, Unix milliseconds or an ISO 8601 string",
      }),
    ),
    after: z.optional(z.int({ error: "must be a request id (a whole number)" })),
    limit: z.optional(z.int({ error: "must be a whole number" })),
  },
  { error: "requests() takes an object {method?, path?, status?, since?, after?, limit?}" },
);

/** `requests(filter)`: the same filters as GET /__admin/requests, as an object. */
export function checkFilter(input: unknown): JournalFilter {
  const checked = check(Filter, input ?? {}, {}, "option");
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
