/**
 * Query and path parameters of the pet routes, decided and worded by the shared
 * validation, exactly as the client does. A list query is validated once per
 * distinct text: clients repeat the same few, and zod's check costs more than
 * the rest of answering a cached page.
 */
import type { ListQuery } from "../schema/pet.js";
import { validateListQuery, validatePetId, type Validated } from "../schema/validate.js";

/** Queries kept, the oldest dropped first: a client varying its query cannot grow it. */
const KEPT_QUERIES = 256;
const queries = new Map<string, Validated<ListQuery>>();

/** The query string of `GET /pets` (without the `?`). */
export function parseListQuery(query: string): Validated<ListQuery> {
  let parsed = queries.get(query);
  if (parsed === undefined) {
    parsed = validateListQuery(new URLSearchParams(query));
    if (queries.size >= KEPT_QUERIES) queries.delete(queries.keys().next().value!);
    queries.set(query, parsed);
  }
  return parsed;
}

/** Up to 18 digits, without a zero in front, is always an int64. */
const PLAIN_ID = /^(?:0|[1-9][0-9]{0,17})$/;

/** A petId path segment; percent-escapes are decoded for the message. */
export function parsePetId(segment: string): Validated<bigint> {
  if (PLAIN_ID.test(segment)) return { ok: true, value: BigInt(segment) };
  let text = segment;
  try {
    text = decodeURIComponent(segment);
  } catch {
    // Undecodable text is validated as sent.
  }
  return validatePetId(text);
}
