/**
 * Every `code` the fake puts in an Error body, with its HTTP status, so a code never
 * changes status. When each is sent is said once, in docs/serve.md's table of error
 * codes (test/readme/tables.test.ts checks that it lists these and no other).
 */
export const ERROR_CODES = {
  bad_request: { status: 400 },
  invalid_query: { status: 400 },
  invalid_pet_id: { status: 400 },
  empty_body: { status: 400 },
  invalid_json: { status: 400 },
  invalid_body: { status: 400 },
  invalid_admin_request: { status: 400 },
  unauthorized: { status: 401 },
  invalid_key: { status: 401 },
  forbidden: { status: 403 },
  admin_unauthorized: { status: 401 },
  admin_forbidden: { status: 403 },
  not_found: { status: 404 },
  admin_key_not_found: { status: 404 },
  pet_not_found: { status: 404 },
  method_not_allowed: { status: 405 },
  gone: { status: 410 },
  request_timeout: { status: 408 },
  payload_too_large: { status: 413 },
  expectation_failed: { status: 417 },
  unsupported_media_type: { status: 415 },
  headers_too_large: { status: 431 },
  rate_limited: { status: 429 },
  banned: { status: 429 },
  internal_error: { status: 500 },
  fault_injected: { status: 503 },
  insufficient_storage: { status: 507 },
  id_space_exhausted: { status: 507 },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The Error body, fields in spec order. */
export function errorJson(code: ErrorCode, message: string): string {
  return JSON.stringify({ code, message, status: ERROR_CODES[code].status });
}
