/**
 * The CLI as it was before undici, for the bulk-import phase's https rows: a copy of bin/ and
 * dist/ in a scratch directory whose dist/bulk.cjs is rebuilt with bench/lib/reference-https-pool.mjs
 * in place of src/bulk/pool-transport.ts. Everything else (engine, results file, pacing, the
 * one `send`) is the same source, so the two builds differ in their transport only.
 * The esbuild options follow scripts/build.mjs's bulk bundle.
 */
import { build } from "esbuild";
import { cp, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const REFERENCE_POOL = fileURLToPath(new URL("./reference-https-pool.mjs", import.meta.url));
/** Packages the bundles load from dist/vendor/ (scripts/build.mjs, VENDORED). */
const VENDORED = ["chalk", "cli-table3", "ora"];

/** Builds the reference CLI into `dir`; returns its bin/petstore.js. Needs `npm run build` first. */
export async function buildReferenceCli(repoRoot, dir) {
  for (const part of ["bin", "dist"]) {
    await cp(join(repoRoot, part), join(dir, part), { recursive: true });
  }
  await cp(join(repoRoot, "package.json"), join(dir, "package.json"));
  const { version } = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8"));
  await build({
    absWorkingDir: repoRoot,
    entryPoints: { bulk: "src/commands/add-from.ts" },
    outdir: join(dir, "dist"),
    bundle: true,
    platform: "node",
    target: "node20",
    minify: true,
    legalComments: "none",
    format: "cjs",
    outExtension: { ".js": ".cjs" },
    supported: { "dynamic-import": false },
    define: { PETSTORE_VERSION: JSON.stringify(version) },
    logLevel: "warning",
    plugins: [
      {
        name: "reference-pool",
        setup(builder) {
          builder.onResolve({ filter: /(^|\/)pool-transport\.js$/ }, () => ({
            path: REFERENCE_POOL,
          }));
          builder.onResolve({ filter: new RegExp(`^(${VENDORED.join("|")})$`) }, (args) => ({
            path: `./vendor/${args.path}.cjs`,
            external: true,
          }));
        },
      },
    ],
  });
  const bundle = await readFile(join(dir, "dist", "bulk.cjs"), "utf8");
  if (bundle.includes("llhttp") || !bundle.includes('scheduling:"fifo"')) {
    throw new Error(
      "the reference bulk bundle does not hold the node:https pool instead of undici",
    );
  }
  return join(dir, "bin", "petstore.js");
}
