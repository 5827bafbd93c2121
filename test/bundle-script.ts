/**
 * A TypeScript fixture bundled into one ESM file, so a test can run it as a
 * child process (`node <file>`): a writer to kill -9, processes racing for a lock.
 */
import { build } from "esbuild";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Bundles `entry` (a URL, e.g. `new URL("fixtures/x.ts", import.meta.url)`) into `dir`; returns the file. */
export async function bundleScript(entry: URL, dir: string): Promise<string> {
  const source = fileURLToPath(entry);
  const outfile = path.join(dir, `${path.basename(source, ".ts")}.mjs`);
  await build({
    entryPoints: [source],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "warning",
  });
  return outfile;
}
