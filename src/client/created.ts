/**
 * What a client can still know of a pet the service says it created (2xx) when
 * the answer's body cannot be read as a pet: the id its `Location` header
 * names (`/v1/pets/42`, relative or absolute, as RFC 9110 allows), and what to
 * tell a person about an add whose outcome is not known.
 */
import { OutcomeUnknownError, type RequestSummary } from "../errors.js";
import { INT64_MAX, petToJson, type NewPet, type Pet } from "../schema/pet.js";
import type { HttpResponse } from "../http-response.js";
import type { ClientResult } from "./types.js";

const PET_PATH = /\/pets\/(0|[1-9][0-9]{0,18})\/?$/;

/** The pet id at the end of a Location's path, when it names one within int64. */
export function idFromLocation(location: string | undefined): bigint | undefined {
  if (location === undefined) return undefined;
  let path: string;
  try {
    path = new URL(location.trim(), "http://service.invalid").pathname;
  } catch {
    return undefined;
  }
  const digits = PET_PATH.exec(path)?.[1];
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

/**
 * A 2xx to POST /pets whose body is not a pet (`unreadable` says why). With a
 * Location naming the id, the pet is the one sent, with that id. Without one
 * nothing the service sent names the pet: its outcome is unknown (exit 7).
 */
export function createdUnread(
  pet: NewPet,
  request: RequestSummary,
  response: HttpResponse,
  unreadable: string,
): ClientResult<Pet> & { unreadable: string } {
  const id = idFromLocation(response.headers.location);
  if (id === undefined) {
    throw new OutcomeUnknownError(
      `${unreadable}; it answered ${response.status}, so the pet was most likely added, but no id can be read (no Location header names one)`,
      request,
      UNKNOWN_ADD_HINT,
    );
  }
  const data: Pet = { id, name: pet.name, categoryId: pet.categoryId };
  if (pet.status !== undefined) data.status = pet.status;
  return { data, raw: petToJson(data), response, unreadable };
}
