import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { fetchRuntime } from "../scripts/node-runtimes.mjs";
import { E2E_RUNTIME } from "./e2e/runtimes.js";
import { ensureBuilt, REPO_ROOT } from "./server/cli-build.js";

declare module "vitest" {
  interface ProvidedContext {
    /** The packed npm package, unpacked: what `npm install petstore-cli` puts in node_modules. */
    packageDir: string;
  }
}

/**
 * Build dist/ once, before any test file runs, so no file rebuilds it under another;
 * pack it as `npm pack` does and unpack the tarball for the end-to-end tests
 * (test/e2e/cli.ts); fetch the Node runtime this project runs them under.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  await ensureBuilt();
  const version = project.config.env?.PETSTORE_TEST_NODE;
  if (version) await fetchRuntime(REPO_ROOT, E2E_RUNTIME, version);
  mkdirSync(join(REPO_ROOT, ".tmp"), { recursive: true });
  const work = mkdtempSync(join(REPO_ROOT, ".tmp", "package-"));
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }),
  ) as { filename: string }[];
  execFileSync("tar", ["-xzf", join(work, packed[0]!.filename), "-C", work]);
  project.provide("packageDir", join(work, "package"));
  return () => rmSync(work, { recursive: true, force: true });
}
