/**
 * The options of `startServer()`: one zod schema, with the words a bad value
 * gets, that also fills in the defaults and gives each value the form the server
 * uses (keys checked and merged, origins normalized, pets validated). The flags
 * of `petstore serve` are read into it (serve-options.ts), and its types are the
 * library's (`StartServerOptions`). The library is called from plain JavaScript
 * too, where types are not checked: an unknown or mistyped option is a
 * ServerConfigError naming it (`startServer: faults.failRate must be a number
 * from 0 to 1; got 2`), never a server that starts with `NaN` in a header.
 */
import * as z from "zod/mini";
import type { Pet } from "../schema/pet.js";
import { formatProblems, validateStoredPet } from "../schema/validate.js";
import type { LogSink } from "./access-log.js";
import type { Clock } from "./admin/clock.js";
import { check, integer, strict, withMethod } from "./check.js";
import { ServerConfigError } from "./config-error.js";
import { defaultMaxConnections, MAX_CONNECTIONS_LIMIT } from "./connection-cap.js";
import { normalizeOrigins } from "./cors.js";
import { FaultOption } from "./faults.js";
import { b64token, KeyList } from "./keys.js";
import {
  DEFAULT_BAN_POLICY,
  DEFAULT_HOST,
  DEFAULT_JOURNAL_SIZE,
  MAX_JOURNAL_SIZE,
} from "./serve-defaults.js";
import type { PetStore } from "./store/memory.js";
import { TlsOption } from "./tls/server-tls.js";

export const MAX_BAN_SECONDS = 86_400;

const SUNSET_RULE = "must be a date (2030-12-05 or 2030-12-05T00:00:00Z), Unix milliseconds or now";

const text = (rule: string) => z.string({ error: rule }).check(z.minLength(1, { error: rule }));
/** An integer of milliseconds from `min` to `max` (an hour); `fallback` when left out. */
const milliseconds = (min: number, fallback: number, max = 3_600_000) =>
  z._default(
    integer(min, max, `must be an integer of milliseconds from ${min} to ${max}`),
    fallback,
  );

/** The library's integers may be numbers; a data file's are read as bigints. */
const big = (value: unknown) => (Number.isInteger(value) ? BigInt(value as number) : value);

/** The pets of an in-memory store, each checked as a data file's pets are, with its id. */
const Pets = z.array(
  z.pipe(
    z.custom<Omit<Pet, "id" | "categoryId"> & Record<"id" | "categoryId", number | bigint>>(
      (pet) => typeof pet === "object" && pet !== null,
      { error: "must be a pet {id, name, categoryId, status?}" },
    ),
    z.transform((input, context): Pet => {
      const checked = validateStoredPet({
        ...input,
        id: big(input.id),
        categoryId: big(input.categoryId),
      });
      const id = checked.ok ? checked.value.id : undefined;
      if (checked.ok && id !== undefined) return { ...checked.value, id };
      const message = checked.ok ? "id is required" : formatProblems(checked.problems);
      context.issues.push({ code: "custom", message, input });
      return z.NEVER;
    }),
  ),
  { error: "must be an array of pets {id, name, categoryId, status?}" },
);

const Cors = z.pipe(
  z.union([z.boolean(), z.array(z.string())], {
    error: "must be true (any origin), false (off) or a list of origins",
  }),
  z.transform((cors, context) => {
    if (typeof cors === "boolean") return cors;
    const origins = normalizeOrigins(cors);
    if (typeof origins === "string") {
      context.issues.push({ code: "custom", message: origins, input: cors });
    }
    return origins as true | string[];
  }),
);

export const START_OPTIONS = strict(
  {
    /** JSON file of pets (created when missing); without it, a memory store. */
    file: z.optional(text("must be a path (a non-empty string)")),
    /** A store to serve instead of `file`; `close()` closes it. */
    store: z.optional(
      withMethod<PetStore>(
        "listJson",
        "must be a PetStore (listJson, getJson, create, reset, close)",
      ),
    ),
    /** Number of demo pets to start with when the file is new (or in memory). */
    seed: z.optional(integer(0, 1_000_000)),
    /**
     * The pets of an in-memory store (ids given; numbers or bigints), what `reset()`
     * goes back to. Not with `file`, `store` or `seed`.
     */
    pets: z.optional(Pets),
    /** Default 0: a free port. */
    port: z._default(integer(0, 65535), 0),
    host: z._default(text("must be an address (a non-empty string)"), DEFAULT_HOST),
    /** Key specs (`key[:plan[:perMinute/perDay]]`) or `{key, plan?, limits?}`; default: one generated free key. */
    keys: z.prefault(KeyList, []),
    /** The fake's time: makes day windows testable in milliseconds. */
    clock: z.optional(
      withMethod<Clock>("now", "must be an object with now(), milliseconds since the Unix epoch"),
    ),
    /** Prism's `Prefer: code=S` request header asks for a scripted answer of status S. */
    preferCode: z.optional(z.boolean({ error: "must be true or false" })),
    /** No access log (server notes are still written). */
    quiet: z.optional(z.boolean({ error: "must be true or false" })),
    /** Where the access log and notes go; default stderr. */
    log: z.optional(withMethod<LogSink>("write", "must be an object with write(text)")),
    faults: z.prefault(FaultOption, {}),
    ban: z.prefault(
      strict(
        {
          /** 429s a client may earn in one limited period before a ban. */
          banAfter: z._default(integer(0, 1_000_000), DEFAULT_BAN_POLICY.banAfter),
          banMs: milliseconds(0, DEFAULT_BAN_POLICY.banMs, MAX_BAN_SECONDS * 1000),
        },
        "must be {banAfter?, banMs?}",
      ),
      {},
    ),
    timeouts: z.prefault(
      strict(
        {
          /** Time allowed for a request's headers (slowloris guard). */
          headersTimeoutMs: milliseconds(1, 10_000),
          /** Time allowed for a whole request, headers and body. */
          requestTimeoutMs: milliseconds(1, 30_000),
          /** How long an idle keep-alive connection is kept. */
          keepAliveTimeoutMs: milliseconds(1, 5_000),
          /** How often the two request timeouts above are checked. */
          checkIntervalMs: milliseconds(1, 1_000),
          /** On close, how long in-flight requests may take before connections are cut. */
          shutdownTimeoutMs: milliseconds(0, 10_000),
        },
        "must be an object of timeouts in milliseconds",
      ),
      {},
    ),
    /** Open connections allowed, idle ones closed first; default 1,000, fewer under a low `ulimit -n`. */
    maxConnections: z._default(integer(1, MAX_CONNECTIONS_LIMIT), defaultMaxConnections),
    /**
     * When `GET /v1/pets/{petId}` is removed (410 Gone from then on, by the fake's
     * clock): a Date, Unix milliseconds, an ISO 8601 date or time, or "now" (the
     * fake's clock at start). Default: the contract's 5 December 2030.
     */
    sunset: z.optional(
      z.union(
        [
          z.literal("now"),
          z.date({ error: SUNSET_RULE }),
          // Within the range of a Date.
          z.number().check(z.gte(-8.64e15, SUNSET_RULE), z.lte(8.64e15, SUNSET_RULE)),
          z.iso.date(),
          z.iso.datetime({ offset: true }),
        ],
        { error: SUNSET_RULE },
      ),
    ),
    /** Requests kept in the request journal (`requests()`); 0 turns it off. */
    journalSize: z._default(integer(0, MAX_JOURNAL_SIZE), DEFAULT_JOURNAL_SIZE),
    /**
     * Required as `Authorization: Bearer <token>` by `/__admin/*`; without it the
     * control plane is open on a loopback host and off on any other.
     */
    adminToken: z.optional(b64token(16)),
    /**
     * CORS: true (the default) for any origin, answered with the request's own
     * origin; a list of origins (`scheme://host[:port]`) for those only; false for off.
     */
    cors: z._default(Cors, true),
    /**
     * Serve https: `{ cert, key }` (PEM text), or `true` for a certificate signed by a
     * local CA kept next to `file` (reused while valid) or, without a file, in memory.
     * `running.tls.ca` is the certificate for clients to trust. The pair is checked by
     * server-tls.ts.
     */
    tls: z.optional(TlsOption),
  },
  "the options must be an object",
).check(
  z.superRefine((options, context) => {
    const clash = (["file", "store", "seed"] as const).filter(
      (name) => options[name] !== undefined,
    );
    if (options.pets !== undefined && clash.length > 0) {
      const message = `pets start an in-memory store and cannot be given with ${clash.join(" or ")}`;
      context.issues.push({ code: "custom", message, input: options });
    }
  }),
);

/** Arrays the library takes may be readonly (as `running.keys` is). */
type ReadonlyArrays<T> = {
  [K in keyof T]: T[K] extends Array<infer E> | undefined ? readonly E[] : T[K];
};

/** An interface, not an alias, so that the declarations users see name it rather than expand it. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface StartServerOptions extends ReadonlyArrays<z.input<typeof START_OPTIONS>> {}
export type ServerOptions = z.output<typeof START_OPTIONS>;
export type ServerTimeouts = ServerOptions["timeouts"];

/** `input` as `schema` gives it, or a ServerConfigError naming each problem after `label`. */
export function parse<T>(schema: z.ZodMiniType<T>, input: unknown, label: string): T {
  const checked = check(schema, input, "option");
  if (!checked.ok) throw new ServerConfigError(`${label}: ${checked.problems.join("; ")}`);
  return checked.value;
}
