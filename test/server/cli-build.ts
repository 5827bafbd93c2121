/**
 * The end-to-end tests spawn bin/petstore.js, which runs the bundle in dist/.
 * `npm test` builds right before vitest; a direct vitest run rebuilds only when a
 * source file is newer than the bundle, so test files do not rebuild under each other.
 */
import { execFile } from "node:child_process";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const BIN = join(REPO_ROOT, "bin", "petstore.js");

async function newestSourceMs(directory: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    const ms = entry.isDirectory() ? await newestSourceMs(path) : (await stat(path)).mtimeMs;
    newest = Math.max(newest, ms);
  }
  return newest;
}

export async function ensureBuilt(): Promise<void> {
  // dist/package.json is written by every build, whatever the layout of the bundles.
  const builtMs = await stat(join(REPO_ROOT, "dist", "package.json")).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  if (builtMs > (await newestSourceMs(join(REPO_ROOT, "src")))) return;
  await promisify(execFile)(process.execPath, [join(REPO_ROOT, "scripts", "build.mjs")], {
    cwd: REPO_ROOT,
  });
}
