/**
 * The README's second command does all the set-up: `npm test` first runs
 * scripts/system-packages.mjs, the one list of the system packages the suite needs.
 * Here a package is made missing for real: a mount namespace of the test's own lays
 * an empty directory over the package's files, as `apt-get remove` would leave them.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { SYSTEM_PACKAGES } from "../../scripts/system-packages.mjs";
import { REPO_ROOT } from "../server/cli-build.js";

const SCRIPT = join(REPO_ROOT, "scripts", "system-packages.mjs");

/** Runs the script as `uid`, with the directories `hidden` empty, in a mount namespace of its own. */
function runHiding(hidden: string[], uid: number) {
  const mounts = hidden.map((dir) => `mount -t tmpfs none '${dir}'`).join(" && ");
  const run = `setpriv --reuid=${uid} --regid=${uid} --clear-groups '${process.execPath}' '${SCRIPT}'`;
  return spawnSync("unshare", ["-m", "sh", "-c", `${mounts} && ${run}`], {
    cwd: "/",
    encoding: "utf8",
  });
}

it("npm test runs it before anything else, and .ci/run keeps no list of its own", () => {
  const scripts = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).scripts;
  expect(scripts.test).toMatch(/^node scripts\/system-packages\.mjs && /);
  expect(readFileSync(join(REPO_ROOT, ".ci", "run"), "utf8")).not.toMatch(/apt-get/);
});

it("says nothing and exits 0 when every package is there", () => {
  const result = spawnSync(process.execPath, [SCRIPT], { encoding: "utf8" });
  expect(result.status).toBe(0);
  expect(result.stdout + result.stderr).toBe("");
});

it("without root, stops with one message naming each missing tool, what needs it, and the command", () => {
  const result = runHiding(["/usr/lib/wine", "/usr/aarch64-linux-gnu/lib"], 65534);
  expect(result.stdout).toBe("");
  expect(result.status).toBe(1);
  const missing = SYSTEM_PACKAGES.filter(
    (row) =>
      row.file.startsWith("/usr/lib/wine/") || row.file.startsWith("/usr/aarch64-linux-gnu/"),
  );
  expect(missing.map((row) => row.pkg)).toEqual([
    "libc6-arm64-cross",
    "libstdc++6-arm64-cross",
    "libgcc-s1-arm64-cross",
    "wine64",
  ]);
  expect(result.stderr).toBe(
    "npm test needs system packages that are missing, and installing needs root:\n" +
      missing.map((row) => `  ${row.pkg} (${row.file}): ${row.for}\n`).join("") +
      "Install them as root on Debian 12 (or run npm test as root, which does it):\n" +
      `  apt-get update && apt-get install -y --no-install-recommends ${missing.map((row) => row.pkg).join(" ")}\n`,
  );
});

it("names every tool the suite runs from the system, each with the package that brings it", () => {
  const owners = SYSTEM_PACKAGES.map(
    (row) => execFileSync("dpkg-query", ["-S", row.file], { encoding: "utf8" }).split(":")[0],
  );
  expect(owners).toEqual(SYSTEM_PACKAGES.map((row) => row.pkg));
});
