/** The local fake of the Pet Store service, as the `serve` command loads it. */
export { UnsafeFileError } from "../files/atomic-write.js";
export { ServerConfigError } from "./config-error.js";
export { controlPlaneNote, exportLines, planServe } from "./serve-options.js";
export { startServer } from "./server.js";
export { StoreError } from "./store/memory.js";
