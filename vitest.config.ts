import { defineConfig } from "vitest/config";
import { E2E_NODE_VERSIONS } from "./test/e2e/runtimes.js";
import { HANG_MS } from "./test/limits.js";

/**
 * Every test under this machine's Node; the end-to-end tests (test/e2e/, the packed
 * npm package) once more under each Node version our users run (test/e2e/runtimes.ts).
 */
export default defineConfig({
  test: {
    globalSetup: ["test/global-setup.ts"],
    testTimeout: HANG_MS,
    hookTimeout: HANG_MS,
    pool: "forks",
    projects: [
      {
        extends: true as const,
        test: { name: `node${process.versions.node}`, include: ["test/**/*.test.ts"] },
      },
      ...E2E_NODE_VERSIONS.map((version) => ({
        extends: true as const,
        test: {
          name: `e2e-node${version}`,
          include: ["test/e2e/**/*.test.ts"],
          env: { PETSTORE_TEST_NODE: version },
        },
      })),
    ],
  },
});
