// Bundles the CLI and the library entry with esbuild. Code splitting keeps heavy
// modules (the server, table rendering, spinners) in chunks that load only when a
// command needs them: start-up is a budget (see README, "Design").
import { build } from "esbuild";
import { rm, writeFile, mkdir, readFile } from "node:fs/promises";

const root = new URL("..", import.meta.url);
const { version } = JSON.parse(await readFile(new URL("package.json", root), "utf8"));
await rm(new URL("dist/", root), { recursive: true, force: true });
await build({
  absWorkingDir: root.pathname,
  entryPoints: { cli: "src/cli.ts", index: "src/index.ts" },
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  minify: true,
  keepNames: false,
  legalComments: "none",
  chunkNames: "chunks/[name]-[hash]",
  banner: {
    js: 'import{createRequire as __petstoreCreateRequire}from"node:module";const require=__petstoreCreateRequire(import.meta.url);',
  },
  define: { PETSTORE_VERSION: JSON.stringify(version) },
  logLevel: "warning",
});
await mkdir(new URL("dist/", root), { recursive: true });
await writeFile(new URL("dist/package.json", root), '{"type":"module"}\n');
