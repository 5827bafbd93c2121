/** What a route answers, before the pipeline adds the common headers; and the common error replies. */
import { ERROR_CODES, errorJson, type ErrorCode } from "../schema/error-codes.js";

export interface Reply {
  status: number;
  /** JSON text, or its UTF-8 bytes. */
  body: string | Buffer;
  /** Extra headers as a flat [name, value, ...] list. */
  headers?: readonly string[];
  /** Answered before the request body was read: close rather than drain it. */
  closeConnection?: boolean;
}

export const NO_CONTENT: Reply = { status: 204, body: "" };

export function errorReply(code: ErrorCode, message: string, headers?: readonly string[]): Reply {
  return { status: ERROR_CODES[code].status, body: errorJson(code, message), headers };
}

/** Client text echoed in a message: bounded, one line. */
export function printable(text: string): string {
  return JSON.stringify(text.length > 100 ? text.slice(0, 100) + "..." : text);
}

/** The 405 of a method that is not one of `allowed` ("GET, HEAD"), which its Allow header names. */
export function methodNotAllowed(method: string | undefined, allowed: string): Reply {
  const message = `${printable(method ?? "")} is not allowed here; allowed: ${allowed}`;
  return errorReply("method_not_allowed", message, ["Allow", allowed]);
}
