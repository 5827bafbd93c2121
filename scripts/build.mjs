// Bundles the CLI and the library entry with esbuild. Start-up is a budget (see
// docs/design.md, "Start-up"), so the command-line program is CommonJS, loaded by
// bin/petstore.js with a V8 code cache:
//
// - dist/cli.cjs: the commander program and every command, in one file. CommonJS
//   because Node's ESM loader alone is a measurable share of `node -e 0` per
//   process, and because only a classic script can be given a code cache
//   (vm.Script), which saves more (figures: docs/benchmarks.md, "Start-up"). The
//   file holds the function CommonJS would wrap the module in, so it is compiled
//   as read.
// - dist/server.cjs: the server (src/server), required only by `serve`.
// - dist/bulk.cjs: `add --from` (src/commands/add-from.ts and src/bulk), required
//   only when a bulk flag is given.
// - dist/prompts.cjs: `add`'s questions at a terminal (src/commands/add-prompts.ts
//   and @clack/prompts), required only when a field is asked for.
// - dist/config.cjs: writing the config file (src/profiles/config-write.ts), required
//   only by the commands that write it.
// - dist/keyring.cjs: the system keyring (src/profiles/keyring.ts), required only to
//   read or write a key there; it loads the native binding, which npm installs as an
//   optional dependency (@napi-rs/keyring-<platform>), from node_modules.
// - dist/tls.cjs: making certificates (src/server/tls/make-certificates.ts and
//   @peculiar/x509), required only by `serve --tls`.
// - dist/vendor/*.cjs: chalk, cli-table3, ora and https-proxy-agent (the one-shot
//   commands' CONNECT tunnel behind a proxy), required on first use by either
//   bundle, so each is loaded once and only when a command needs it.
// - dist/cli.cjs.cache: the code cache, made by running the hot commands once
//   against a stub server (scripts/code-cache.mjs).
//
// The library entry (dist/index.js) and an ESM build of the CLI (dist/cli.js,
// for programmatic use) stay ESM with code splitting. The library entry is also
// built as CommonJS (dist/index.cjs, one file), for `require("petstore-cli")`
// from CommonJS programs and test runners (Jest without ESM); package.json's
// "require" condition points there.
//
// dist/home/: the home page's script and styles, its stylesheet (@picocss/pico)
// and the API reference library (swagger-ui-dist), copied (scripts/home-assets.mjs).
//
// dist/THIRD_PARTY_LICENSES lists every package the bundles take from
// node_modules, with its licence text, from esbuild's metafiles (written to
// dist/metafile.json, which does not ship, for the test that checks the list),
// and the packages copied into dist/home/.
//
// Everything is built into a staging directory that then replaces dist/ in one
// rename, so a test or benchmark running meanwhile never sees half a build.
import { build } from "esbuild";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { writeCodeCache } from "./code-cache.mjs";
import { copyHomeAssets, COPIED_PACKAGES } from "./home-assets.mjs";
import { mergeMetafiles, writeThirdPartyLicenses } from "./third-party-licenses.mjs";

const root = new URL("..", import.meta.url);
const staging = `.tmp/build-${process.pid}`;
const { version } = JSON.parse(await readFile(new URL("package.json", root), "utf8"));

/**
 * Packages the CLI bundles require lazily, each from dist/vendor/<name>.cjs, and
 * what that file exports. The bundles import them as Node would (the sources
 * are ESM in a "type": "module" package), so a default import receives the
 * whole `module.exports`: for ora, that must be the default export.
 */
const VENDORED = {
  chalk: "module.exports = require('chalk');",
  "cli-table3": "module.exports = require('cli-table3');",
  // ESM only (its exports map has no "require" condition).
  "https-proxy-agent": "export { HttpsProxyAgent } from 'https-proxy-agent';",
  ora: "module.exports = require('ora').default;",
};
const VENDORED_NAMES = Object.keys(VENDORED);

const common = {
  absWorkingDir: root.pathname,
  outdir: staging,
  bundle: true,
  platform: "node",
  target: "node20",
  minify: process.env.PETSTORE_BUILD_NO_MINIFY !== "1",
  keepNames: false,
  legalComments: "none",
  define: { PETSTORE_VERSION: JSON.stringify(version) },
  logLevel: "warning",
  metafile: true,
};

/** Cold modules stay out of the bundle that imports them: each is a file of its own. */
const SEPARATE_FILES = [
  [/(^|\/)server\/index\.js$/, "./server.cjs"],
  [/(^|\/)add-from\.js$/, "./bulk.cjs"],
  [/(^|\/)add-prompts\.js$/, "./prompts.cjs"],
  [/(^|\/)config-write\.js$/, "./config.cjs"],
  [/(^|\/)keyring\.js$/, "./keyring.cjs"],
  [/(^|\/)make-certificates\.js$/, "./tls.cjs"],
];

const separateFiles = {
  name: "separate-files",
  setup(builder) {
    for (const [filter, path] of SEPARATE_FILES) {
      builder.onResolve({ filter }, () => ({ path, external: true }));
    }
    builder.onResolve({ filter: new RegExp(`^(${VENDORED_NAMES.join("|")})$`) }, (args) => ({
      path: `./vendor/${args.path}.cjs`,
      external: true,
    }));
  },
};

/**
 * commander requires node:child_process when it loads, for subcommands that are
 * programs of their own, which petstore has none of. Loading it (and dgram with
 * it) cost every command time and memory (docs/benchmarks.md, "One parser"), so
 * the CLI bundle gives commander a stand-in that loads it on first use.
 */
const lazyChildProcess = {
  name: "lazy-child-process",
  setup(builder) {
    builder.onResolve({ filter: /^node:child_process$/ }, (args) =>
      args.importer.includes("node_modules/commander/")
        ? { path: "child_process", namespace: "lazy" }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: "lazy" }, () => ({
      contents:
        'module.exports = new Proxy({}, { get: (_, name) => require("node:child_process")[name] });',
      loader: "js",
    }));
  },
};

/** `vendor:<name>` entry points: a CommonJS module exporting what the table above says. */
const vendorShims = {
  name: "vendor-shims",
  setup(builder) {
    builder.onResolve({ filter: /^vendor:/ }, (args) => ({ path: args.path, namespace: "vendor" }));
    builder.onLoad({ filter: /.*/, namespace: "vendor" }, (args) => ({
      contents: VENDORED[args.path.slice("vendor:".length)],
      resolveDir: root.pathname,
      loader: "js",
    }));
  },
};

/** dist/cli.cjs is the body of this function (see bin/petstore.js). */
const CLI_WRAPPER_START = "(function (exports, require, module, __filename, __dirname) {";
const CLI_WRAPPER_END = "\n})";

const commonJs = {
  ...common,
  format: "cjs",
  outExtension: { ".js": ".cjs" },
  // import() becomes require(): a vm.Script with a code cache cannot import().
  supported: { "dynamic-import": false },
  // import.meta.url (the home page finds its files from it) is the bundle's own
  // URL, computed only when read.
  define: { ...common.define, "import.meta.url": "__petstoreMeta.url" },
  banner: {
    js: 'var __petstoreMeta={get url(){return require("node:url").pathToFileURL(__filename).href}};',
  },
};

await rm(new URL(`${staging}/`, root), { recursive: true, force: true });
const results = await Promise.all([
  build({
    ...common,
    entryPoints: { cli: "src/cli.ts", index: "src/index.ts" },
    splitting: true,
    format: "esm",
    chunkNames: "chunks/[name]-[hash]",
    banner: {
      js: 'import{createRequire as __petstoreCreateRequire}from"node:module";const require=__petstoreCreateRequire(import.meta.url);',
    },
  }),
  build({
    ...commonJs,
    entryPoints: { cli: "src/cli.ts" },
    plugins: [separateFiles, lazyChildProcess],
    // The function CommonJS would wrap it in, written into the file: the launcher
    // compiles the file's text as it is, with no second copy of it to make.
    banner: { js: `${CLI_WRAPPER_START}${commonJs.banner.js}` },
    footer: { js: CLI_WRAPPER_END },
  }),
  build({
    ...commonJs,
    entryPoints: { server: "src/server/index.ts" },
    plugins: [separateFiles],
  }),
  build({
    ...commonJs,
    entryPoints: { bulk: "src/commands/add-from.ts" },
    plugins: [separateFiles],
  }),
  build({
    ...commonJs,
    entryPoints: { prompts: "src/commands/add-prompts.ts" },
    plugins: [separateFiles],
  }),
  build({
    ...commonJs,
    entryPoints: { config: "src/profiles/config-write.ts" },
    plugins: [separateFiles],
  }),
  build({
    ...commonJs,
    entryPoints: { keyring: "src/profiles/keyring.ts" },
    plugins: [separateFiles],
  }),
  build({
    ...commonJs,
    entryPoints: { tls: "src/server/tls/make-certificates.ts" },
    plugins: [separateFiles],
  }),
  build({
    ...commonJs,
    entryPoints: { index: "src/index.ts" },
  }),
  build({
    ...commonJs,
    entryPoints: Object.fromEntries(
      VENDORED_NAMES.map((name) => [`vendor/${name}`, `vendor:${name}`]),
    ),
    plugins: [vendorShims],
  }),
]);
await copyHomeAssets({ root: root.pathname, outdir: new URL(`${staging}/`, root).pathname });
await writeFile(new URL(`${staging}/package.json`, root), '{"type":"module"}\n');
const metafile = mergeMetafiles(results.map((result) => result.metafile));
await writeFile(new URL(`${staging}/metafile.json`, root), JSON.stringify(metafile));
await writeThirdPartyLicenses({
  root: root.pathname,
  metafile,
  file: new URL(`${staging}/THIRD_PARTY_LICENSES`, root),
  copied: COPIED_PACKAGES,
  heading:
    `petstore-cli ${version} bundles the third-party packages below into dist/. Each entry\n` +
    "gives the package's name, version and declared licence, then the licence files it ships.\n" +
    "The system keyring's native binding is not in dist/: npm installs the one for your platform\n" +
    "(@napi-rs/keyring-<platform>, an optional dependency, MIT) with its own licence files; its\n" +
    "LICENSE.third-party.md lists the Rust crates built into it (and, on Linux, libdbus).",
}).catch(async (error) => {
  await rm(new URL(`${staging}/`, root), { recursive: true, force: true });
  console.error(`build: ${error.message}`);
  process.exit(1);
});
await writeCodeCache(new URL(`${staging}/cli.cjs`, root));

const previous = new URL(`.tmp/previous-${process.pid}/`, root);
await mkdir(new URL(".tmp/", root), { recursive: true });
await rename(new URL("dist/", root), previous).catch((error) => {
  if (error.code !== "ENOENT") throw error;
});
await rename(new URL(`${staging}/`, root), new URL("dist/", root));
await rm(previous, { recursive: true, force: true });
