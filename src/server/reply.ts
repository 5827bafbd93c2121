/** What a route answers, before the pipeline adds the common headers. */
import { ERROR_CODES, errorJson, type ErrorCode } from "./error-codes.js";

export interface Reply {
  status: number;
  /** JSON text, or its UTF-8 bytes. */
  body: string | Buffer;
  /** Extra headers as a flat [name, value, ...] list. */
  headers?: readonly string[];
  /** Answered before the request body was read: close rather than drain it. */
  closeConnection?: boolean;
}

export function errorReply(code: ErrorCode, message: string, headers?: readonly string[]): Reply {
  return { status: ERROR_CODES[code].status, body: errorJson(code, message), headers };
}
