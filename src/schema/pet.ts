/**
 * The one schema module shared by the client and the server: the service's
 * resources (PetStatus, NewPet, Pet, Error) and the parameters of its operations.
 *
 * Built on `zod/mini`, whose functions tree-shake: the CLI's start-up budget cannot
 * afford the full zod bundle (see docs/design.md). Integers are `bigint`
 * throughout, because the lossless JSON parser (./json.ts) yields them that way
 * and int64 ids do not fit a double.
 */
import * as z from "zod/mini";

export const PET_STATUSES = ["available", "pending", "sold"] as const;
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
export const LIMIT_MIN = 1;
export const LIMIT_MAX = 100;
export const LIMIT_DEFAULT = 20;
export const NAME_MAX_LENGTH = 200;
/** What the service stores when `status` is omitted on creation (the spec leaves it open). */
export const DEFAULT_PET_STATUS = "available";

export const PetStatus = z.enum(PET_STATUSES);
export type PetStatus = z.infer<typeof PetStatus>;

export const Int64 = z.bigint().check(z.gte(INT64_MIN), z.lte(INT64_MAX));

/**
 * An integer field of a request body. The lossless parser gives plain digits as a
 * bigint, exact to int64; a number written with a fraction or an exponent (`1.0`,
 * `1e3`) arrives as a double and is an integer when its value is one, as JSON
 * Schema's `integer` has it, but only up to 2^53 - 1: beyond that a double cannot
 * tell neighbouring integers apart, so such a value must be sent as plain digits.
 */
export const JsonInt64 = z.pipe(
  z.transform((value: unknown) =>
    typeof value === "number" && Number.isSafeInteger(value) ? BigInt(value) : value,
  ),
  Int64,
);

/**
 * 1 to 200 characters (Unicode code points, as JSON Schema counts them), not only
 * white space (`\S`, the pattern the OpenAPI document states).
 */
export const PetName = z
  .string()
  .check(z.minLength(1), z.maxLength(NAME_MAX_LENGTH), z.regex(/\S/, "must not be blank"));

export const NewPet = z.strictObject({
  name: PetName,
  categoryId: JsonInt64,
  status: z.optional(PetStatus),
});
export type NewPet = z.output<typeof NewPet>;

/** A pet of the fake's data file: its id as written (plain digits), or none yet. */
export const StoredPet = z.strictObject({ id: z.optional(Int64), ...NewPet.shape });

/** A pet as the service answers it: a NewPet with its id, its integers plain digits (bigint). */
export const Pet = z.strictObject({ id: Int64, ...NewPet.shape, categoryId: Int64 });
export type Pet = z.infer<typeof Pet>;

export const HttpStatusCode = z.bigint().check(z.gte(100n), z.lte(599n));

export const ErrorBody = z.object({
  code: z.string(),
  message: z.string(),
  status: HttpStatusCode,
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** `limit` as it arrives in a query string or a flag: decimal digits, 1..100. */
export const LimitParam = z.pipe(
  z.string().check(z.regex(/^[0-9]{1,9}$/)),
  z.coerce.number<string>().check(z.gte(LIMIT_MIN), z.lte(LIMIT_MAX)),
);

/** A pet id as it arrives in a path or an argument: an int64 in decimal. */
export const PetIdParam = z.pipe(
  z.string().check(z.regex(/^-?(0|[1-9][0-9]{0,18})$/)),
  z.coerce.bigint<string>().check(z.gte(INT64_MIN), z.lte(INT64_MAX)),
);

export const ListQuery = z.strictObject({
  limit: z._default(LimitParam, LIMIT_DEFAULT),
  status: z.optional(PetStatus),
});
export type ListQuery = z.output<typeof ListQuery>;

/**
 * Canonical JSON of one pet, fields in spec order; int64 values as exact digits. The
 * fake's store keeps the integers a file held as safe numbers as numbers.
 */
export function petToJson(
  pet: Omit<Pet, "id" | "categoryId"> & { id: bigint | number; categoryId: bigint | number },
): string {
  let json = `{"id":${pet.id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId}`;
  if (pet.status !== undefined) json += `,"status":"${pet.status}"`;
  return json + "}";
}
