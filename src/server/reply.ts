/** What a route answers, before the pipeline adds the common headers; and the common error replies. */
import { NO_KEY, type UNKNOWN_KEY } from "./auth.js";
import { ERROR_CODES, errorJson, type ErrorCode } from "../schema/error-codes.js";
import type { RateDecision } from "./rate-limit.js";

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

/** The rate-limit headers of a decision, as a flat list. */
export function rateHeaders(decision: RateDecision): string[] {
  return [
    "X-RateLimit-Limit",
    String(decision.limit),
    "X-RateLimit-Remaining",
    String(decision.remaining),
    "X-RateLimit-Reset",
    String(decision.resetSeconds),
  ];
}

export function rateLimitedReply(decision: RateDecision): Reply {
  const retryAfter = ["Retry-After", String(decision.retryAfterSeconds)];
  if (decision.verdict === "banned") {
    return errorReply(
      "banned",
      `too many requests while rate limited: banned for ${decision.retryAfterSeconds} s; wait for Retry-After before retrying`,
      retryAfter,
    );
  }
  return errorReply(
    "rate_limited",
    `rate limit of ${decision.limit} requests exceeded; retry after ${decision.retryAfterSeconds} s`,
    retryAfter,
  );
}

const CHALLENGE = 'Bearer realm="petstore"';
const INVALID_TOKEN_CHALLENGE = 'Bearer realm="petstore", error="invalid_token"';

export function unauthorizedReply(identity: typeof NO_KEY | typeof UNKNOWN_KEY): Reply {
  return identity === NO_KEY
    ? errorReply("unauthorized", "an API key is required: send Authorization: Bearer <key>", [
        "WWW-Authenticate",
        CHALLENGE,
      ])
    : errorReply("invalid_key", "the API key is not valid", [
        "WWW-Authenticate",
        INVALID_TOKEN_CHALLENGE,
      ]);
}

/** Client text echoed in a message: bounded, one line. */
export function printable(text: string): string {
  const shown = text.length > 100 ? text.slice(0, 100) + "..." : text;
  return JSON.stringify(shown);
}
