// A Secret Service of a test's (or the bench's) own: a private D-Bus session bus
// (dbus-daemon) and GNOME Keyring on it, both children of the caller, with every file in
// its directory (the keyrings in `<dir>/home/.local/share/keyrings`). The bus starts no
// service by itself (no service directories), so nothing answers on it but what the
// caller starts: no keyring at all, an unlocked one, or a locked one, whose unlock
// prompt finds no prompter and is dismissed at once, as on a machine with no display.
// `lookup` and `clear` are libsecret's `secret-tool`, a client that is not petstore.
// Used by test/e2e/keyring.test.ts, test/dist/ and bench/phases/keyring-read.mjs; the
// packages it needs are in scripts/system-packages.mjs.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** The service petstore keeps keys under (src/profiles/keyring-name.ts). */
const KEYRING_SERVICE = "petstore-cli";
/** The login keyring's password: what a desktop session would unlock it with. */
const PASSWORD = "test-login-password";
/** GNOME Keyring comes up in a fraction of a second: a hang detector for a loaded machine. */
const START_LIMIT_MS = 60_000;

function stop(child) {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

function ownerOfSecrets(env) {
  const asked = spawnSync(
    "dbus-send",
    [
      "--session",
      "--print-reply",
      "--dest=org.freedesktop.DBus",
      "/org/freedesktop/DBus",
      "org.freedesktop.DBus.NameHasOwner",
      "string:org.freedesktop.secrets",
    ],
    { env, encoding: "utf8" },
  );
  return /boolean true/.test(asked.stdout);
}

/** Starts the bus in `dir`, with no keyring on it yet. */
export async function startSecretService(dir) {
  const home = join(dir, "home");
  mkdirSync(home, { recursive: true });
  const config = join(dir, "bus.conf");
  writeFileSync(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=${join(dir, "bus")}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`,
  );
  const bus = spawn("dbus-daemon", [`--config-file=${config}`, "--nofork", "--print-address=1"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const address = await new Promise((resolve, reject) => {
    let out = "";
    bus.stdout.on("data", (chunk) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve(out.split("\n")[0]);
    });
    bus.once("error", reject);
    bus.once("exit", (code) =>
      reject(new Error(`dbus-daemon exited (${code}) before its address`)),
    );
  });
  const env = { DBUS_SESSION_BUS_ADDRESS: address };
  const childEnv = { PATH: process.env.PATH, HOME: home, ...env };
  let keyring;

  return {
    address,
    env,
    async startKeyring(state) {
      const unlock = state === "unlocked" ? ["--unlock"] : [];
      keyring = spawn("gnome-keyring-daemon", ["--foreground", "--components=secrets", ...unlock], {
        env: childEnv,
        stdio: ["pipe", "ignore", "ignore"],
      });
      keyring.stdin.end(state === "unlocked" ? PASSWORD : "");
      const deadline = Date.now() + START_LIMIT_MS;
      while (!ownerOfSecrets(childEnv)) {
        if (keyring.exitCode !== null) throw new Error("gnome-keyring-daemon exited at start");
        if (Date.now() > deadline) throw new Error("gnome-keyring-daemon did not come up");
        await sleep(50);
      }
    },
    stopKeyring: () => stop(keyring),
    lookup(account) {
      try {
        const found = execFileSync(
          "secret-tool",
          ["lookup", "service", KEYRING_SERVICE, "username", account],
          { env: childEnv, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
        );
        return found === "" ? undefined : found;
      } catch {
        return undefined;
      }
    },
    clear(account) {
      execFileSync("secret-tool", ["clear", "service", KEYRING_SERVICE, "username", account], {
        env: childEnv,
        stdio: "ignore",
      });
    },
    async close() {
      await stop(keyring);
      await stop(bus);
    },
  };
}
