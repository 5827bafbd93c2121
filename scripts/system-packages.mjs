// The system packages the test suite needs, in one place: `npm test` runs this first,
// and .ci/run only calls `npm test`. Each row: a file that shows the package is
// there, the Debian package that brings it, and which tests need it.
//
// Run as a script: when something is missing, root on a machine with apt-get installs
// it (the machines we develop on and CI are Debian 12, as root); anyone else gets one
// message naming each missing tool, what needs it and the command that installs it,
// and exit 1, before any test runs. Nothing is skipped silently. Why this way:
// docs/testing.md.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ARM64 = "/usr/aarch64-linux-gnu/lib";

export const SYSTEM_PACKAGES = [
  {
    file: "/usr/bin/chromium",
    pkg: "chromium",
    for: "the home page in a real browser (test/browser/)",
  },
  { file: "/usr/bin/tmux", pkg: "tmux", for: "the terminal tests and the README tour (tmux)" },
  {
    file: "/bin/zsh",
    pkg: "zsh",
    for: "the zsh completion script (test/completion/shells.test.ts)",
  },
  {
    file: "/usr/bin/fish",
    pkg: "fish",
    for: "the fish completion script (test/completion/shells.test.ts)",
  },
  {
    file: "/usr/sbin/squid",
    pkg: "squid",
    for: "the proxy tests against a real proxy (test/e2e/squid.test.ts)",
  },
  {
    file: "/usr/bin/openssl",
    pkg: "openssl",
    for: "squid's password file (test/e2e/squid.test.ts)",
  },
  {
    file: "/usr/bin/strace",
    pkg: "strace",
    for: "the sync before a 201 (test/server/store/sync-order.test.ts)",
  },
  {
    file: "/usr/bin/qemu-aarch64",
    pkg: "qemu-user",
    for: "the linux-arm64 binary, run under qemu (test/dist/binary.test.ts)",
  },
  {
    file: `${ARM64}/ld-linux-aarch64.so.1`,
    pkg: "libc6-arm64-cross",
    for: "the linux-arm64 binary under qemu",
  },
  {
    file: `${ARM64}/libstdc++.so.6`,
    pkg: "libstdc++6-arm64-cross",
    for: "the linux-arm64 binary under qemu",
  },
  {
    file: `${ARM64}/libgcc_s.so.1`,
    pkg: "libgcc-s1-arm64-cross",
    for: "the linux-arm64 binary under qemu",
  },
  {
    file: "/usr/lib/wine/wine64",
    pkg: "wine64",
    for: "the win-x64 binary and the npm package on Windows, under wine (test/dist/, test/platforms/)",
  },
  {
    file: "/usr/bin/podman",
    pkg: "podman",
    for: "the container images, loaded and run (test/dist/image.test.ts)",
  },
  {
    file: "/usr/sbin/runc",
    pkg: "runc",
    for: "running containers (crun cannot, on these machines)",
  },
  {
    file: "/usr/bin/slirp4netns",
    pkg: "slirp4netns",
    for: "the containers' network: no bridge and no firewall rule on the machine",
  },
  {
    file: "/usr/bin/qemu-aarch64-static",
    pkg: "qemu-user-static",
    for: "the arm64 image, run through binfmt_misc (static: it runs inside the container)",
  },
  {
    file: "/usr/bin/gnome-keyring-daemon",
    pkg: "gnome-keyring",
    for: "the key in a real Secret Service keyring (test/e2e/keyring.test.ts, test/dist/binary.test.ts)",
  },
  {
    file: "/usr/bin/dbus-daemon",
    pkg: "dbus-daemon",
    for: "the tests' own D-Bus session for GNOME Keyring (scripts/secret-service.mjs)",
  },
  {
    file: "/usr/bin/dbus-send",
    pkg: "dbus-bin",
    for: "waiting for GNOME Keyring on that session (scripts/secret-service.mjs)",
  },
  {
    file: "/usr/bin/secret-tool",
    pkg: "libsecret-tools",
    for: "reading the keyring as another program does (scripts/secret-service.mjs)",
  },
  {
    file: "/usr/bin/x86_64-w64-mingw32-gcc-win32",
    pkg: "gcc-mingw-w64-x86-64-win32",
    for: "the bcryptprimitives.dll wine 8 lacks, built for the win-x64 binary's keyring test (test/platforms/wine.ts)",
  },
  {
    file: "/usr/bin/osslsigncode",
    pkg: "osslsigncode",
    for: "building the win-x64 binary (its base's signature is removed)",
  },
];

/** The rows whose file is missing on this machine. */
export function missingPackages() {
  return SYSTEM_PACKAGES.filter((row) => !existsSync(row.file));
}

function installCommand(packages) {
  return `apt-get install -y --no-install-recommends ${packages.join(" ")}`;
}

/** Why this process cannot install packages itself, or undefined when it can. */
function cannotInstall() {
  if (process.platform !== "linux") return `this is ${process.platform}, not Debian`;
  if (spawnSync("apt-get", ["--version"], { stdio: "ignore" }).error) return "apt-get is not here";
  if (process.getuid?.() !== 0) return "installing needs root";
  return undefined;
}

function stop(missing, why) {
  const packages = [...new Set(missing.map((row) => row.pkg))];
  const lines = missing.map((row) => `  ${row.pkg} (${row.file}): ${row.for}`);
  process.stderr.write(
    `npm test needs system packages that are missing, and ${why}:\n${lines.join("\n")}\n` +
      `Install them as root on Debian 12 (or run npm test as root, which does it):\n` +
      `  apt-get update && ${installCommand(packages)}\n`,
  );
  process.exit(1);
}

function install(missing) {
  const packages = [...new Set(missing.map((row) => row.pkg))];
  process.stderr.write(`Installing the system packages the tests need: ${packages.join(" ")}\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  try {
    execFileSync("apt-get", ["update", "-qq"], { env, stdio: ["ignore", "ignore", "inherit"] });
    execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...packages], {
      env,
      stdio: ["ignore", "ignore", "inherit"],
    });
  } catch {
    stop(missingPackages(), "apt-get could not install them (its message is above)");
  }
  const still = missingPackages();
  if (still.length > 0) stop(still, "apt-get installed them without these files");
}

if (fileURLToPath(import.meta.url) === resolve(process.argv[1] ?? "")) {
  const missing = missingPackages();
  if (missing.length > 0) {
    const why = cannotInstall();
    if (why) stop(missing, why);
    install(missing);
  }
}
