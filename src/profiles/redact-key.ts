/** How a key is shown; in schema/ so the fake's control plane shows keys the same way. */
export { redactKey } from "../schema/redact-key.js";
