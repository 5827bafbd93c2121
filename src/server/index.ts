/** The local fake of the Pet Store service: what `petstore serve` and test suites use. */
export { createApp, UNLIMITED } from "./app.js";
export type { App, AppOptions, Clock, ServerStats } from "./app.js";
export type { LogSink } from "./access-log.js";
export { ServerConfigError } from "./config-error.js";
export { ERROR_CODES, type ErrorCode } from "./error-codes.js";
export { FAIL_MODES, type FailMode, type FaultOptions } from "./faults.js";
export { PLAN_LIMITS, type ApiKeySpec, type PlanName, type WindowLimits } from "./keys.js";
export { DEFAULT_BAN_POLICY, type BanPolicy } from "./rate-limit.js";
export { MAX_BODY_BYTES } from "./request-body.js";
export { DEFAULT_FILE, DEFAULT_HOST, DEFAULT_PORT, KEYS_VARIABLE } from "./serve-defaults.js";
export { controlPlaneNote, exportLines, planServe, type ServeFlags } from "./serve-options.js";
export {
  DEFAULT_TIMEOUTS,
  startServer,
  type RequestFilter,
  type RunningServer,
  type ServerTimeouts,
  type StartServerOptions,
} from "./server.js";
export { StoreError } from "./store/types.js";
