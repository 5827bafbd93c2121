/**
 * Reading a JSON request body: media type, a 1 MiB cap (checked on
 * Content-Length first, then counted as a chunked body streams in), UTF-8, and
 * the lossless int64 parser. Failures come back as ready Error replies.
 */
import { isUtf8 } from "node:buffer";
import type { IncomingMessage } from "node:http";
import { parseJson, type JsonSyntaxError, type JsonValue } from "../schema/json.js";
import { errorReply, type Reply } from "./reply.js";

export const MAX_BODY_BYTES = 1024 * 1024;

type BodyResult =
  | { ok: true; value: JsonValue }
  /** `empty`: the body was empty (the reply says `empty_body`). */
  | { ok: false; reply: Reply; empty?: true }
  /** The client went away before the body was complete: nothing to answer. */
  | { ok: false; reply: undefined };

/** Drops a byte order mark, as JSON allows. */
const utf8 = new TextDecoder();

/** `application/json`, optionally with `charset=utf-8`; case and spaces do not matter. */
const JSON_MEDIA_TYPE = /^\s*application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)*$/i;

const UNSUPPORTED_MEDIA_TYPE = "Content-Type must be application/json (charset utf-8 if given)";
const TOO_LARGE = `the body is larger than ${MAX_BODY_BYTES} bytes (1 MiB)`;

/** `keep` receives the bytes read (up to the cap), before they are interpreted. */
export async function readJsonBody(
  req: IncomingMessage,
  keep?: (bytes: Buffer) => void,
): Promise<BodyResult> {
  const contentType = req.headers["content-type"];
  if (contentType !== undefined && !JSON_MEDIA_TYPE.test(contentType)) {
    return refuse(errorReply("unsupported_media_type", UNSUPPORTED_MEDIA_TYPE));
  }
  if (Number(req.headers["content-length"]) > MAX_BODY_BYTES) {
    return refuse(errorReply("payload_too_large", TOO_LARGE));
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    // Left unread past the cap, not destroyed: the 413 is still to be written.
    for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return refuse(errorReply("payload_too_large", TOO_LARGE));
      chunks.push(chunk);
    }
  } catch {
    // The client went away before the body was complete.
    return { ok: false, reply: undefined };
  }
  const bytes = Buffer.concat(chunks, size);
  keep?.(bytes);
  if (!isUtf8(bytes)) {
    return { ok: false, reply: errorReply("invalid_json", "the body is not valid UTF-8") };
  }
  const text = utf8.decode(bytes);
  if (text.trim() === "") {
    const reply = errorReply("empty_body", "the body is empty; send a NewPet as JSON");
    return { ok: false, reply, empty: true };
  }
  if (contentType === undefined) {
    return { ok: false, reply: errorReply("unsupported_media_type", UNSUPPORTED_MEDIA_TYPE) };
  }
  try {
    return { ok: true, value: parseJson(text) };
  } catch (error) {
    // parseJson throws nothing else.
    const { limit, message } = error as JsonSyntaxError;
    const what = limit
      ? "the body's JSON is beyond the fake's limits"
      : "the body is not valid JSON";
    return { ok: false, reply: errorReply("invalid_json", `${what}: ${message}`) };
  }
}

/** An answer given before the whole body was read: the connection cannot be reused. */
function refuse(reply: Reply): BodyResult {
  return { ok: false, reply: { ...reply, closeConnection: true } };
}
