/**
 * A non-2xx answer as one of the typed errors of src/errors.ts. The service's own
 * message (from its Error body) is kept; a body that is not an Error object still
 * gives a message with the status. Text from the service is cleaned before it can
 * reach a terminal: no control characters, no copy of the key.
 *
 * And what the retry wrapper says when it gives up on the rate limit (exit 5):
 * which window binds (minute, day, a ban), when to try again in human units, and
 * the `--max-retries` hint only when more attempts could have helped.
 */
import {
  AuthError,
  EXIT,
  type ExitCode,
  HttpError,
  NotFoundError,
  OutcomeUnknownError,
  type PetstoreError,
  RateLimitError,
  type RequestSummary,
  UsageError,
} from "../errors.js";
import { TERMINAL_CONTROLS } from "../schema/control-characters.js";
import { parseJson } from "../schema/json.js";
import { ErrorBody } from "../schema/pet.js";
import { withoutKey } from "./key-safety.js";
import type { HttpResponse, RateLimitInfo } from "../http-response.js";
import { rateLimitFromHeaders } from "./headers.js";
import type { HttpRequest } from "./types.js";
import { type RateWindow, waitUntil, windowOf } from "./wait-text.js";

/**
 * Why `petstore list` is no way to find a pet whose add had an unknown outcome:
 * the service has no search, and a list shows the first 100 pets by id.
 */
export const LIST_CANNOT_TELL =
  "`petstore list` shows only the first 100 pets by id, so it can tell only while the service holds no more";

/** How to find out whether an add of unknown outcome happened. */
export const UNKNOWN_ADD_HINT = `look for the pet before adding it again: ${LIST_CANNOT_TELL}`;

const SNIPPET_LENGTH = 120;

/** C0/C1 controls and bidirectional controls could rewrite what a terminal shows. */
const UNPRINTABLE = new RegExp(`[${TERMINAL_CONTROLS}]+`, "g");

export function printable(text: string): string {
  return text.replace(UNPRINTABLE, " ").trim();
}

function errorBodyOf(text: string): ErrorBody | undefined {
  try {
    const parsed = ErrorBody.safeParse(parseJson(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** "404 Not Found: pet 5 does not exist", or the status with a hint of what came instead. */
function describeAnswer(
  status: number,
  body: ErrorBody | undefined,
  text: string,
  clean: (text: string) => string,
): string {
  // Loaded here, not at start-up: only an answer that is not a 2xx needs the reason phrases.
  const reason = process.getBuiltinModule("node:http").STATUS_CODES[status];
  const head = reason ? `${status} ${reason}` : String(status);
  if (body) return `${head}: ${clean(body.message)}`;
  const firstLine = clean(text.trim().split("\n", 1)[0] ?? "");
  if (firstLine === "") return `${head} with an empty body`;
  if (firstLine.startsWith("<")) return `${head} with an HTML page instead of an Error object`;
  const snippet =
    firstLine.length > SNIPPET_LENGTH ? firstLine.slice(0, SNIPPET_LENGTH) + "..." : firstLine;
  return `${head} (${JSON.stringify(snippet)})`;
}

function locationOrigin(location: string | undefined, requestUrl: string): string {
  if (location === undefined) return "an unnamed address";
  if (!URL.canParse(location, requestUrl)) return "an unreadable address";
  return new URL(location, requestUrl).origin;
}

export function errorFromResponse(
  request: RequestSummary,
  response: HttpResponse,
  apiKey?: string,
): PetstoreError {
  const { status } = response;
  const body = errorBodyOf(response.body);
  const clean = (text: string) => printable(withoutKey(text, apiKey));
  const answer = describeAnswer(status, body, response.body, clean);
  const error = (Type: typeof HttpError, message: string, exitCode: ExitCode, hint?: string) =>
    new Type(message, exitCode, status, request, body, hint, response);

  if (status >= 300 && status < 400) {
    const target = clean(locationOrigin(response.headers.location, request.url));
    return error(
      HttpError,
      `the service redirected ${request.method} ${request.url} (${status}) to ${target}; petstore does not follow redirects, so the API key never goes anywhere else`,
      EXIT.USAGE,
      "if the service has moved, set the new address with --base-url, PETSTORE_BASE_URL or `petstore auth login --base-url`",
    );
  }
  switch (status) {
    case 400:
      return new UsageError(`the service rejected the request: ${answer}`);
    case 401:
      return error(
        AuthError,
        `the service did not accept the API key: ${answer}`,
        EXIT.AUTH,
        "run `petstore auth login`, or set PETSTORE_API_KEY; `petstore auth status` shows which key is used",
      );
    case 403:
      return error(AuthError, `the API key may not do this: ${answer}`, EXIT.AUTH);
    case 404:
      if (body) return error(NotFoundError, answer, EXIT.NOT_FOUND);
      return error(
        NotFoundError,
        `nothing at ${request.url}: ${answer}`,
        EXIT.NOT_FOUND,
        "check the base URL; it ends in the API version, e.g. .../v1",
      );
    case 410:
      return error(
        HttpError,
        `the service has removed ${request.method} ${request.url}: ${answer}`,
        EXIT.GONE,
        "`petstore list` (GET /pets, filtered with --status) replaces `petstore get`",
      );
    case 429:
      return error(RateLimitError, `rate limited: ${answer}`, EXIT.RATE_LIMITED);
  }
  if (status < 500) {
    const unexpected = `unexpected answer to ${request.method} ${request.url}: ${answer}`;
    return error(HttpError, unexpected, EXIT.UNEXPECTED);
  }
  // 503 means the service refused the request without handling it (RFC 9110,
  // 15.6.4); 507 that it could not store what the request asked it to (RFC 4918,
  // 11.5): the pet was not added. Any other 5xx to a POST may come after the pet
  // was stored, or from a gateway that forwarded it: nobody can say whether it was.
  if (request.method === "POST" && status !== 503 && status !== 507) {
    return new OutcomeUnknownError(
      `the service answered ${answer}; the pet may or may not have been added`,
      request,
      UNKNOWN_ADD_HINT,
    );
  }
  return error(HttpError, `the service answered ${answer}`, EXIT.NETWORK);
}

const BAN_WARNING = "a key that keeps sending while limited may be banned for a while";
export const MORE_ATTEMPTS_HINT = `\`--max-retries\` allows more attempts; ${BAN_WARNING}`;

/** "the per-minute limit of 60 requests", "the daily limit", "the rate limit of 500 requests". */
function limitName(window: RateWindow | undefined, limit: number | undefined): string {
  const name =
    window === "minute" ? "per-minute limit" : window === "day" ? "daily limit" : "rate limit";
  if (limit === undefined) return `the ${name}`;
  return `the ${name} of ${limit} request${limit === 1 ? "" : "s"}`;
}

/**
 * The moment trying again makes sense. X-RateLimit-Reset names it to the second;
 * Retry-After counts whole seconds from when the answer left, so it names the
 * same moment up to a second later: then the reset is the clearer of the two.
 */
function retryMoment(
  headers: Record<string, string>,
  nowMs: number,
  waitMs: number,
): { at: number; limit: number | undefined } {
  const { resetAt, retryAfterMs, limit } = rateLimitFromHeaders(headers, nowMs);
  const reset = resetAt !== undefined && resetAt > nowMs ? resetAt : undefined;
  const after = retryAfterMs === undefined ? undefined : nowMs + retryAfterMs;
  let at = reset ?? nowMs + waitMs;
  if (after !== undefined && !(reset !== undefined && Math.abs(after - reset) < 1000)) at = after;
  return { at, limit };
}

export interface GiveUp {
  /** Attempts made. */
  attempts: number;
  /** The wait the wrapper would have needed before the next attempt. */
  waitMs: number;
  nowMs: number;
  /**
   * Whether more attempts could have helped: retries were on, the attempts ran
   * out, and the next wait would have fitted the total-wait budget. Not when
   * retries were off (--no-retry, --max-retries 0) or the wait is past the budget.
   */
  moreAttemptsHelp: boolean;
}

/** Giving up on a 429: which window binds, and when to try again. */
export function stillRateLimited(error: RateLimitError, giveUp: GiveUp): RateLimitError {
  const { attempts, nowMs } = giveUp;
  const after = `(after ${attempts} attempt${attempts === 1 ? "" : "s"})`;
  const moment = retryMoment(error.response?.headers ?? {}, nowMs, giveUp.waitMs);
  const code = error.body?.code;
  const window = windowOf(moment.at, nowMs);
  let what = error.message;
  let hint: string | undefined = giveUp.moreAttemptsHelp ? MORE_ATTEMPTS_HINT : BAN_WARNING;
  if (code === "banned") {
    what = "rate limited (429): the key is banned for sending while rate limited";
    hint = undefined;
  } else if (window !== undefined && (code === undefined || code === "rate_limited")) {
    what = `rate limited (429): ${limitName(window, moment.limit)} is used up`;
  }
  const { status, request, body, response } = error;
  const message = `${what} ${after}; try again in ${waitUntil(moment.at, nowMs)}`;
  return new RateLimitError(message, EXIT.RATE_LIMITED, status, request, body, hint, response);
}

/** Remaining was 0 and the reset is further away than the wrapper may wait (or retries are off). */
export function limitUsedUp(
  request: HttpRequest,
  rateLimit: RateLimitInfo,
  nowMs: number,
): RateLimitError {
  const window = windowOf(rateLimit.resetAt, nowMs);
  const used =
    window === undefined
      ? `the rate limit is used up (0 of ${rateLimit.limit} requests left)`
      : `${limitName(window, rateLimit.limit)} is used up`;
  const message = `${used}; the request was not sent; try again in ${waitUntil(rateLimit.resetAt, nowMs)}`;
  const summary = { method: request.method, url: request.path };
  return new RateLimitError(message, EXIT.RATE_LIMITED, 429, summary, undefined);
}
