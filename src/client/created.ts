/**
 * What a client can still know of a pet the service says it created (2xx) when
 * the answer's body cannot be read as a pet: the id its `Location` header
 * names (`/v1/pets/42`, relative or absolute, as RFC 9110 allows), and what to
 * tell a person about an add whose outcome is not known.
 */
import { INT64_MAX } from "../schema/pet.js";

const PET_PATH = /\/pets\/(0|[1-9][0-9]{0,18})\/?$/;

/** The pet id at the end of a Location's path, when it names one within int64. */
export function idFromLocation(location: string | undefined): bigint | undefined {
  if (location === undefined) return undefined;
  const base = "http://service.invalid";
  if (!URL.canParse(location.trim(), base)) return undefined;
  const digits = PET_PATH.exec(new URL(location.trim(), base).pathname)?.[1];
  if (digits === undefined) return undefined;
  const id = BigInt(digits);
  return id <= INT64_MAX ? id : undefined;
}

/**
 * Why `petstore list` is no way to find a pet whose add had an unknown outcome:
 * the service has no search, and a list shows the first 100 pets by id.
 */
export const LIST_CANNOT_TELL =
  "`petstore list` shows only the first 100 pets by id, so it can tell only while the service holds no more";

/** How to find out whether an add of unknown outcome happened. */
export const UNKNOWN_ADD_HINT = `look for the pet before adding it again: ${LIST_CANNOT_TELL}`;
