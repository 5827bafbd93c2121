/** The three operations of the spec, as replies: no headers, limits or sockets here. */
import type { IncomingMessage } from "node:http";
import { formatProblems, validateNewPet } from "../schema/validate.js";
import { errorReply, type Reply } from "./reply.js";
import { readJsonBody } from "./request-body.js";
import { parseListQuery, parsePetId } from "./request-params.js";
import type { PageCache } from "./page-cache.js";
import { StoreError, type PetStore } from "./store/types.js";

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

/**
 * Resolves to undefined when the client left before its body arrived. `keep`
 * receives the body's bytes as received (for the request journal).
 */
export async function createPet(
  store: PetStore,
  req: IncomingMessage,
  keep?: (bytes: Buffer) => void,
): Promise<Reply | undefined> {
  const body = await readJsonBody(req, keep);
  if (!body.ok) return body.reply;
  const newPet = validateNewPet(body.value);
  if (!newPet.ok) return errorReply("invalid_body", formatProblems(newPet.problems));
  try {
    const created = await store.create(newPet.value);
    return { status: 201, body: created.json, headers: ["Location", `/v1/pets/${created.pet.id}`] };
  } catch (error) {
    if (error instanceof StoreError && error.code === "id_space_exhausted") {
      return errorReply("id_space_exhausted", error.message);
    }
    if (error instanceof StoreError && error.code === "not_stored") {
      return errorReply("insufficient_storage", error.message);
    }
    throw error;
  }
}
