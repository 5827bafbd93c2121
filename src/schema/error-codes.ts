/**
 * Every `code` the fake puts in an Error body, with its HTTP status. One table,
 * so docs/serve.md and the tests can list them and a code never changes status.
 */
export const ERROR_CODES = {
  bad_request: { status: 400, when: "the HTTP request itself is malformed" },
  invalid_query: { status: 400, when: "a query parameter of GET /pets is unknown or invalid" },
  invalid_pet_id: { status: 400, when: "petId is not an int64 in decimal" },
  empty_body: { status: 400, when: "POST /pets without a body" },
  invalid_json: {
    status: 400,
    when: "the body is not UTF-8 JSON, or beyond the parser's limits (the message says where)",
  },
  invalid_body: { status: 400, when: "the body is JSON but not a valid NewPet" },
  invalid_admin_request: {
    status: 400,
    when: "a control-plane body or query is not what it takes (the message names the field)",
  },
  unauthorized: { status: 401, when: "no bearer key was sent" },
  invalid_key: { status: 401, when: "the bearer key is not known" },
  forbidden: {
    status: 403,
    when: "the home page's pet list (/__home/pets) was asked for from another machine",
  },
  admin_unauthorized: {
    status: 401,
    when: "the fake has an --admin-token and the control-plane request did not send it",
  },
  admin_forbidden: {
    status: 403,
    when: "a control-plane request from a page of another origin, or to a non-loopback Host",
  },
  not_found: { status: 404, when: "no route has this path" },
  admin_key_not_found: { status: 404, when: "DELETE /__admin/keys/{key} of a key the fake lacks" },
  pet_not_found: { status: 404, when: "no pet has this id" },
  method_not_allowed: { status: 405, when: "the path exists but not with this method" },
  gone: { status: 410, when: "GET /pets/{petId} at or after its sunset (`serve --sunset`)" },
  request_timeout: { status: 408, when: "the headers or body arrived too slowly" },
  payload_too_large: { status: 413, when: "the body is larger than 1 MiB" },
  expectation_failed: { status: 417, when: "an Expect header other than 100-continue" },
  unsupported_media_type: { status: 415, when: "the body is not application/json" },
  headers_too_large: { status: 431, when: "the request headers are too large" },
  rate_limited: { status: 429, when: "the key (or address) has no requests left in a window" },
  banned: { status: 429, when: "the client kept sending while rate limited" },
  internal_error: { status: 500, when: "an unexpected failure (details only in the log)" },
  fault_injected: { status: 503, when: "--fail-rate chose this request (--fail-mode 503)" },
  insufficient_storage: {
    status: 507,
    when: "the disk refused the write (full, quota, I/O error); nothing stored",
  },
  id_space_exhausted: { status: 507, when: "no int64 id is left above the largest id used" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The Error body, fields in spec order. */
export function errorJson(code: ErrorCode, message: string): string {
  return JSON.stringify({ code, message, status: ERROR_CODES[code].status });
}
