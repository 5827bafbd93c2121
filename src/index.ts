export * from "./schema/index.js";
export { startServer } from "./server/server.js";
export type { RunningServer, ServerTimeouts, StartServerOptions } from "./server/server.js";
