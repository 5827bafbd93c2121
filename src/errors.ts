/**
 * One error family for the client. Each error knows its exit code; only `cli.ts`
 * turns an error into an exit code and a message (never a stack trace unless
 * `--debug`).
 */
import type { HttpResponse } from "./http-response.js";
import type { ErrorBody } from "./schema/pet.js";
import { ERROR_KIND, KindedError } from "./schema/kinded-error.js";

export const EXIT = {
  OK: 0,
  UNEXPECTED: 1,
  /** Usage or invalid input, including a 400 from the service. */
  USAGE: 2,
  /** Authentication: no key, or the service answered 401. */
  AUTH: 3,
  /** The service answered 404. */
  NOT_FOUND: 4,
  /** Still rate limited (429) after the retries. */
  RATE_LIMITED: 5,
  /** Network error, timeout, or the service unavailable (5xx) after the retries. */
  NETWORK: 6,
  /** A write may or may not have happened (timeout or reset after the body was sent). */
  OUTCOME_UNKNOWN: 7,
  /** The proxy (HTTPS_PROXY, http_proxy) refused the request or could not be reached. */
  PROXY: 8,
  /** `add --from` could not write its results file (a full disk): it stopped sending. */
  RESULTS_UNWRITABLE: 9,
  /** The person answered "no" at `add`'s confirmation: nothing was sent. Not an error. */
  DECLINED: 10,
  /** The service has removed the operation (410 Gone): `get` after the sunset of GET /pets/{id}. */
  GONE: 11,
  /** `petstore verdict`: the fake saw the app under test break a rule of the contract. */
  VIOLATIONS: 12,
  /** Stopped by Ctrl-C or SIGTERM (128 + SIGINT), as shells report it; or cancelled at a prompt. */
  INTERRUPTED: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * What each exit code means: the one table behind `petstore --help` and the
 * README's exit-code table (`npm run docs` writes it; a test checks it is current).
 */
export const EXIT_MEANINGS: Readonly<Record<ExitCode, string>> = {
  [EXIT.OK]: "success",
  [EXIT.UNEXPECTED]:
    "unexpected error (a stack trace only with `--debug`), or the output could not be written (full disk) or filtered (`--jq`)",
  [EXIT.USAGE]: "usage or invalid input, including a 400 from the service and a redirect",
  [EXIT.AUTH]: "authentication: no key, or the key was rejected (401)",
  [EXIT.NOT_FOUND]: "not found (404)",
  [EXIT.RATE_LIMITED]: "still rate limited after the retries (429)",
  [EXIT.NETWORK]: "network error, timeout, or the service unavailable (5xx) after the retries",
  [EXIT.OUTCOME_UNKNOWN]: "outcome unknown: an add may or may not have happened",
  [EXIT.PROXY]:
    "the proxy refused the request (407: credentials missing or wrong) or could not be reached; nothing reached the service",
  [EXIT.RESULTS_UNWRITABLE]:
    "`add --from` could not write its results file (a full disk): it stopped before losing an outcome; `--resume` continues",
  [EXIT.DECLINED]: "not added: `add` was answered no at its confirmation (nothing sent)",
  [EXIT.GONE]:
    "the service has removed the operation (410 Gone): `petstore get` after the sunset of GET /pets/{id}; use `petstore list`",
  [EXIT.VIOLATIONS]:
    "`petstore verdict`: the fake saw the app under test break a rule of the contract (each violation is printed)",
  [EXIT.INTERRUPTED]:
    "interrupted (Ctrl-C, SIGTERM) during `add --from`: requests in flight finish, `--resume` continues; Ctrl-C at a prompt: nothing sent",
};

/** Each class declares its kind: `instanceof` holds across bundles (schema/kinded-error.ts). */
export class PetstoreError extends KindedError {
  static override [ERROR_KIND] = "PetstoreError";
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    /** One line that tells the user what to do next, printed after the message. */
    readonly hint?: string,
  ) {
    super(message);
  }
}

/**
 * Not a failure: the person said no. cli.ts prints the message as it is, without
 * `error:`, and exits with a code of its own.
 */
export class DeclinedError extends PetstoreError {
  static override [ERROR_KIND] = "DeclinedError";
  constructor(message: string) {
    super(message, EXIT.DECLINED);
  }
}

export class UsageError extends PetstoreError {
  static override [ERROR_KIND] = "UsageError";
  constructor(message: string, hint?: string) {
    super(message, EXIT.USAGE, hint);
  }
}

/** What the client knows of the request that failed (never the key). */
export interface RequestSummary {
  method: string;
  url: string;
}

/** The service answered with a non-2xx status. */
export class HttpError extends PetstoreError {
  static override [ERROR_KIND] = "HttpError";
  constructor(
    message: string,
    exitCode: ExitCode,
    readonly status: number,
    readonly request: RequestSummary,
    readonly body: ErrorBody | undefined,
    hint?: string,
    /** The whole answer (headers included), when there was one: the retry wrapper reads it. */
    readonly response?: HttpResponse,
  ) {
    super(message, exitCode, hint);
  }
}

export class AuthError extends HttpError {
  static override [ERROR_KIND] = "AuthError";
}
export class NotFoundError extends HttpError {
  static override [ERROR_KIND] = "NotFoundError";
}
export class RateLimitError extends HttpError {
  static override [ERROR_KIND] = "RateLimitError";
}

/** No answer: DNS, refused, reset, TLS. `sent` says whether the body may have reached the service. */
export class NetworkError extends PetstoreError {
  static override [ERROR_KIND] = "NetworkError";
  constructor(
    message: string,
    readonly request: RequestSummary,
    readonly sent: boolean,
    hint?: string,
  ) {
    super(message, EXIT.NETWORK, hint);
  }
}

export class TimeoutError extends NetworkError {
  static override [ERROR_KIND] = "TimeoutError";
}

/**
 * The TLS handshake failed in a way another attempt cannot change (a certificate
 * that is not trusted, expired or for another host; a service that does not
 * speak TLS): never retried. Nothing was sent.
 */
export class TlsError extends NetworkError {
  static override [ERROR_KIND] = "TlsError";
}

/**
 * The base URL's host name does not resolve, and another attempt would meet the
 * same answer (see client/network-errors.ts): never retried. Nothing was sent.
 */
export class HostNotFoundError extends NetworkError {
  static override [ERROR_KIND] = "HostNotFoundError";
}

/**
 * The proxy of HTTPS_PROXY or http_proxy (see client/proxy-env.ts) failed before
 * the request reached the service: it refused it (a 407, a CONNECT refused) or
 * could not be reached (refused, not found, closed). Not a NetworkError: it says
 * nothing about the service, and another attempt would meet the same proxy, so
 * it is never retried. `proxy` is the proxy's URL without its credentials.
 */
export class ProxyError extends PetstoreError {
  static override [ERROR_KIND] = "ProxyError";
  constructor(
    message: string,
    readonly proxy: string,
    hint?: string,
  ) {
    super(message, EXIT.PROXY, hint);
  }
}

/** A POST whose outcome cannot be known: never retried blindly. */
export class OutcomeUnknownError extends PetstoreError {
  static override [ERROR_KIND] = "OutcomeUnknownError";
  constructor(
    message: string,
    readonly request: RequestSummary,
    hint?: string,
  ) {
    super(message, EXIT.OUTCOME_UNKNOWN, hint);
  }
}
