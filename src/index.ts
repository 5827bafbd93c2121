/**
 * The library entry for TypeScript and JavaScript users: the fake server for test
 * suites, the client the CLI uses, and the shared schema.
 */
export * from "./schema/index.js";
export { startServer } from "./server/server.js";
export type { RequestFilter, RunningServer } from "./server/server.js";
export type { ServerTimeouts, StartServerOptions } from "./server/options.js";
export type { RecordedRequest } from "./server/admin/request-journal.js";
export type { KeyEntry } from "./server/admin/routes.js";
export type { NextRule } from "./server/admin/next.js";
export type { Verdict } from "./server/verdict.js";
export type { FaultOptions } from "./server/faults.js";
export type { ApiKeySpec } from "./server/keys.js";
export { createClient, DEFAULT_TIMEOUT_MS } from "./client/client.js";
export type { ClientOptions } from "./client/client.js";
export type { Transport } from "./client/transport.js";
export { DEFAULT_RETRY_POLICY } from "./client/retry.js";
export type { RetryPolicy } from "./client/retry.js";
export { DEFAULT_BASE_URLS } from "./profiles/environments.js";
export type { ClientResult, Deprecation, PetstoreClient, RetryEvent } from "./client/types.js";
export type { RateLimitInfo } from "./http-response.js";
export * from "./errors.js";
