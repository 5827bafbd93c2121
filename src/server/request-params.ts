/**
 * Query and path parameters on the hot path. The common valid cases are
 * recognised by hand; anything else goes to the shared validation, which
 * decides and words the error exactly as the client does.
 */
import { LIMIT_DEFAULT, PET_STATUSES, type ListQuery } from "../schema/pet.js";
import { validateListQuery, validatePetId, type Validated } from "../schema/validate.js";

const DEFAULT_QUERY: Validated<ListQuery> = { ok: true, value: { limit: LIMIT_DEFAULT } };
const STATUSES: ReadonlySet<string> = new Set(PET_STATUSES);

function fastLimit(text: string): number {
  // "1".."100" without signs, zeros in front or escapes.
  if (text.length === 0 || text.length > 3 || text.charCodeAt(0) === 48) return -1;
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value <= 100 ? value : -1;
}

/** The query string of `GET /pets` (without the `?`). */
export function parseListQuery(query: string): Validated<ListQuery> {
  if (query === "") return DEFAULT_QUERY;
  let limit = -1;
  let status: string | undefined;
  let start = 0;
  while (start <= query.length) {
    let end = query.indexOf("&", start);
    if (end === -1) end = query.length;
    const eq = query.indexOf("=", start);
    if (eq === -1 || eq > end) return slowListQuery(query);
    const name = query.slice(start, eq);
    const value = query.slice(eq + 1, end);
    if (name === "limit" && limit === -1) {
      limit = fastLimit(value);
      if (limit === -1) return slowListQuery(query);
    } else if (name === "status" && status === undefined && STATUSES.has(value)) {
      status = value;
    } else {
      return slowListQuery(query);
    }
    start = end + 1;
  }
  const value: ListQuery = { limit: limit === -1 ? LIMIT_DEFAULT : limit };
  if (status !== undefined) value.status = status as ListQuery["status"];
  return { ok: true, value };
}

function slowListQuery(query: string): Validated<ListQuery> {
  return validateListQuery(new URLSearchParams(query));
}

/** A petId path segment: up to 18 digits is always an int64, the rest goes to validation. */
export function parsePetId(segment: string): Validated<bigint> {
  const length = segment.length;
  if (length > 0 && length <= 18 && (length === 1 || segment.charCodeAt(0) !== 48)) {
    let digits = true;
    for (let i = 0; i < length; i++) {
      const c = segment.charCodeAt(i);
      if (c < 48 || c > 57) {
        digits = false;
        break;
      }
    }
    if (digits) return { ok: true, value: BigInt(segment) };
  }
  return validatePetId(decodeSegment(segment));
}

/** Percent-escapes decoded for the message; undecodable text is validated as sent. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
