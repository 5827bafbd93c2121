import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../server/cli-build.js";

/**
 * Makes the named standalone binaries current (test/dist/build-stale-binaries.mjs),
 * under a lock that every test file taking binaries from dist/ shares.
 */
export function ensureBinaries(names: readonly string[]): void {
  mkdirSync(join(REPO_ROOT, ".tmp"), { recursive: true });
  execFileSync(
    "flock",
    [
      join(REPO_ROOT, ".tmp", "binaries.lock"),
      process.execPath,
      join(REPO_ROOT, "test", "dist", "build-stale-binaries.mjs"),
      ...names,
    ],
    { cwd: REPO_ROOT, stdio: ["ignore", "ignore", "pipe"] },
  );
}
