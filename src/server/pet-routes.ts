/**
 * The three operations of the spec, as replies: no headers, limits or sockets
 * here. Their parameters are decided and worded by the shared validation,
 * exactly as the client does.
 */
import type { IncomingMessage } from "node:http";
import type { ErrorCode } from "../schema/error-codes.js";
import type { ListQuery } from "../schema/pet.js";
import {
  formatProblems,
  validateListQuery,
  validatePetId,
  type Validated,
} from "../schema/validate.js";
import { errorReply, type Reply } from "./reply.js";
import { readJsonBody } from "./request-body.js";
import { StoreError, type PetStore, type StoreErrorCode } from "./store/memory.js";

/**
 * `GET /pets`, by query text (without the `?`). Clients repeat the same few
 * queries: each is validated once (zod's check costs more than the rest of
 * answering a kept page), and its page is kept as bytes until the store's
 * revision changes (a create, or an edit of the file picked up by the store): a
 * page from the store is a fresh string of many joined pieces, and measuring and
 * encoding it is most of the cost of a list request. Past 256 queries the oldest
 * is dropped, so a client varying its query cannot grow it.
 */
export function createPetList(store: PetStore): (query: string) => Reply {
  const queries = new Map<string, Validated<ListQuery> & { page?: Buffer; revision?: number }>();
  return (query) => {
    let kept = queries.get(query);
    if (kept === undefined) {
      if (queries.size >= 256) queries.delete(queries.keys().next().value!);
      kept = validateListQuery(new URLSearchParams(query));
      queries.set(query, kept);
    }
    if (!kept.ok) return errorReply("invalid_query", formatProblems(kept.problems));
    if (kept.revision !== store.revision) {
      kept.revision = store.revision;
      kept.page = Buffer.from(store.listJson(kept.value));
    }
    return { status: 200, body: kept.page! };
  };
}

/** Up to 18 digits, without a zero in front, is always an int64. */
const PLAIN_ID = /^(?:0|[1-9][0-9]{0,17})$/;

/** A petId path segment; percent-escapes are decoded for the message. */
function parsePetId(segment: string): Validated<bigint> {
  if (PLAIN_ID.test(segment)) return { ok: true, value: BigInt(segment) };
  let text = segment;
  try {
    text = decodeURIComponent(segment);
  } catch {
    // Undecodable text is validated as sent.
  }
  return validatePetId(text);
}

export function getPet(store: PetStore, idSegment: string): Reply {
  const parsed = parsePetId(idSegment);
  if (!parsed.ok) return errorReply("invalid_pet_id", formatProblems(parsed.problems));
  const json = store.getJson(parsed.value);
  if (json === undefined) return errorReply("pet_not_found", `no pet has the id ${parsed.value}`);
  return { status: 200, body: json };
}

/** The store's refusals of a create that a client is told about, and how. */
const CREATE_REFUSALS: Partial<Record<StoreErrorCode, ErrorCode>> = {
  invalid: "invalid_body",
  id_space_exhausted: "id_space_exhausted",
  not_stored: "insufficient_storage",
};

/**
 * Resolves to undefined when the client left before its body arrived. `keep`
 * receives the body's bytes as received (for the request journal). The store
 * validates the body.
 */
export async function createPet(
  store: PetStore,
  req: IncomingMessage,
  keep?: (bytes: Buffer) => void,
): Promise<Reply | undefined> {
  const body = await readJsonBody(req, keep);
  if (!body.ok) return body.reply;
  try {
    const created = await store.create(body.value);
    return { status: 201, body: created.json, headers: ["Location", `/v1/pets/${created.pet.id}`] };
  } catch (error) {
    const code = error instanceof StoreError ? CREATE_REFUSALS[error.code] : undefined;
    if (code === undefined) throw error;
    return errorReply(code, (error as StoreError).message);
  }
}
