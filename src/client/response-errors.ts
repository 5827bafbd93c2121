/**
 * A non-2xx answer as one of the typed errors of src/errors.ts. The service's own
 * message (from its Error body) is kept; a body that is not an Error object still
 * gives a message with the status. Text from the service is cleaned before it can
 * reach a terminal: no control characters, no copy of the key.
 */
import {
  AuthError,
  EXIT,
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
import { UNKNOWN_ADD_HINT } from "./created.js";
import { ErrorBody } from "../schema/pet.js";
import { withoutKey } from "./key-safety.js";
import type { HttpResponse } from "../http-response.js";

const REASONS: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  410: "Gone",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  507: "Insufficient Storage",
};

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
  const head = REASONS[status] ? `${status} ${REASONS[status]}` : String(status);
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
  try {
    return new URL(location, requestUrl).origin;
  } catch {
    return "an unreadable address";
  }
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

  if (status >= 300 && status < 400) {
    const target = clean(locationOrigin(response.headers.location, request.url));
    return new HttpError(
      `the service redirected ${request.method} ${request.url} (${status}) to ${target}; petstore does not follow redirects, so the API key never goes anywhere else`,
      EXIT.USAGE,
      status,
      request,
      body,
      "if the service has moved, set the new address with --base-url, PETSTORE_BASE_URL or `petstore auth login --base-url`",
      response,
    );
  }
  switch (status) {
    case 400:
      return new UsageError(`the service rejected the request: ${answer}`);
    case 401:
      return new AuthError(
        `the service did not accept the API key: ${answer}`,
        EXIT.AUTH,
        status,
        request,
        body,
        "run `petstore auth login`, or set PETSTORE_API_KEY; `petstore auth status` shows which key is used",
        response,
      );
    case 403:
      return new AuthError(
        `the API key may not do this: ${answer}`,
        EXIT.AUTH,
        status,
        request,
        body,
        undefined,
        response,
      );
    case 404:
      return new NotFoundError(
        body ? answer : `nothing at ${request.url}: ${answer}`,
        EXIT.NOT_FOUND,
        status,
        request,
        body,
        body ? undefined : "check the base URL; it ends in the API version, e.g. .../v1",
        response,
      );
    case 410:
      return new HttpError(
        `the service has removed ${request.method} ${request.url}: ${answer}`,
        EXIT.GONE,
        status,
        request,
        body,
        "`petstore list` (GET /pets, filtered with --status) replaces `petstore get`",
        response,
      );
    case 429:
      return new RateLimitError(
        `rate limited: ${answer}`,
        EXIT.RATE_LIMITED,
        status,
        request,
        body,
        undefined,
        response,
      );
  }
  if (status >= 500) {
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
    return new HttpError(
      `the service answered ${answer}`,
      EXIT.NETWORK,
      status,
      request,
      body,
      undefined,
      response,
    );
  }
  return new HttpError(
    `unexpected answer to ${request.method} ${request.url}: ${answer}`,
    EXIT.UNEXPECTED,
    status,
    request,
    body,
    undefined,
    response,
  );
}
