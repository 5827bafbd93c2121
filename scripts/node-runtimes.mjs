// Node runtimes of other platforms, for scripts/build-binary.mjs and the tests that run
// them (test/platforms/, under wine): the npm registry's node-<os>-<arch> packages,
// fetched with `npm pack` (npm install refuses another platform's: EBADPLATFORM) and
// unpacked into .cache/nodes/<package>-<version>/. Nothing is downloaded from anywhere else.
// The binaries' keyring bindings (@napi-rs/keyring-<platform>) are fetched the same way.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);
/** A fetch is an install: a hang detector for a loaded machine, not a goal. */
const FETCH_LIMIT_MS = 600_000;

/** Where the npm package `name@version` (a Node runtime) is unpacked under the repository `root`. */
export function runtimeDir(root, name, version) {
  return join(root, ".cache", "nodes", `${name.replace("/", "+")}-${version}`);
}

/**
 * The directory of the npm package `name@version`, fetched and unpacked on first use.
 * Two processes may fetch it at once (the build beside a test): each unpacks into a
 * directory of its own and renames it into place, so a directory at the final name is
 * always complete, and the one that comes second keeps the first's.
 */
export async function fetchRuntime(root, name, version) {
  const dir = runtimeDir(root, name, version);
  if (existsSync(join(dir, "package.json"))) return dir;
  console.error(`fetching ${name}@${version} from the npm registry`);
  await mkdir(dirname(dir), { recursive: true });
  const staging = await mkdtemp(`${dirname(dir)}/.${basename(dir)}-`);
  try {
    const { stdout } = await execFileAsync(
      "npm",
      ["pack", "--json", "--pack-destination", staging, `${name}@${version}`],
      { cwd: root, timeout: FETCH_LIMIT_MS },
    );
    const [{ filename }] = JSON.parse(stdout);
    const unpacked = join(staging, "package");
    await mkdir(unpacked);
    await execFileAsync(
      "tar",
      ["-xzf", join(staging, filename), "-C", unpacked, "--strip-components=1"],
      { timeout: FETCH_LIMIT_MS },
    );
    try {
      await rename(unpacked, dir);
    } catch (error) {
      // Another process renamed its complete copy into place first.
      if (!existsSync(join(dir, "package.json"))) throw error;
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return dir;
}

/** The path of `target`'s node executable (a row of scripts/binary-targets.mjs), fetched on first use. */
export async function targetNode(root, target) {
  return join(await fetchRuntime(root, target.runtime, target.node), target.executable);
}
