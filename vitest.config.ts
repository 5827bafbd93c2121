import { defineConfig } from "vitest/config";
import { HANG_MS } from "./test/limits.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: HANG_MS,
    hookTimeout: HANG_MS,
    pool: "forks",
  },
});
