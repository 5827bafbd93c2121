/** The three operations of the spec, as replies: no headers, limits or sockets here. */
import type { IncomingMessage } from "node:http";
import type { ErrorCode } from "../schema/error-codes.js";
import { formatProblems } from "../schema/validate.js";
import { errorReply, type Reply } from "./reply.js";
import { readJsonBody } from "./request-body.js";
import { parseListQuery, parsePetId } from "./request-params.js";
import type { PageCache } from "./page-cache.js";
import { StoreError, type PetStore, type StoreErrorCode } from "./store/types.js";

export function listPets(pages: PageCache, query: string): Reply {
  const parsed = parseListQuery(query);
  if (!parsed.ok) return errorReply("invalid_query", formatProblems(parsed.problems));
  return { status: 200, body: pages.page(parsed.value) };
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
