/**
 * A Secret Service of a test's own: a private D-Bus session bus (dbus-daemon) and GNOME
 * Keyring on it, both children of the test, with every file in the test's directory
 * (the keyrings in `<dir>/home/.local/share/keyrings`). The bus starts no service by
 * itself (no service directories), so nothing answers on it but what the test starts:
 * no keyring at all, an unlocked one, or a locked one, whose unlock prompt finds no
 * prompter and is dismissed at once, as on a machine with no display. `lookup` is
 * libsecret's `secret-tool`, a reader that is not petstore.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { KEYRING_SERVICE } from "../../src/profiles/keyring-name.js";
import { HANG_MS } from "../limits.js";

/** The login keyring's password: what a desktop session would unlock it with. */
const PASSWORD = "test-login-password";

export interface SecretService {
  /** DBUS_SESSION_BUS_ADDRESS of the bus. */
  readonly address: string;
  /** The variables a client on this bus needs. */
  readonly env: { DBUS_SESSION_BUS_ADDRESS: string };
  /** Starts GNOME Keyring on the bus, its login keyring unlocked or (from an earlier start) locked. */
  startKeyring(state: "unlocked" | "locked"): Promise<void>;
  stopKeyring(): Promise<void>;
  /** The key stored for `account`, as secret-tool reads it; undefined when there is none. */
  lookup(account: string): string | undefined;
  /** Removes it, as another program may. */
  clear(account: string): void;
  /** Ends the keyring and the bus. */
  close(): Promise<void>;
}

function stop(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

function ownerOfSecrets(env: NodeJS.ProcessEnv): boolean {
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
export async function startSecretService(dir: string): Promise<SecretService> {
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
  const address = await new Promise<string>((resolve, reject) => {
    let out = "";
    bus.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve(out.split("\n")[0]!);
    });
    bus.once("error", reject);
    bus.once("exit", (code) =>
      reject(new Error(`dbus-daemon exited (${code}) before its address`)),
    );
  });
  const env = { DBUS_SESSION_BUS_ADDRESS: address };
  const childEnv = { PATH: process.env.PATH, HOME: home, ...env };
  let keyring: ChildProcess | undefined;

  return {
    address,
    env,
    async startKeyring(state) {
      const unlock = state === "unlocked" ? ["--unlock"] : [];
      keyring = spawn("gnome-keyring-daemon", ["--foreground", "--components=secrets", ...unlock], {
        env: childEnv,
        stdio: ["pipe", "ignore", "ignore"],
      });
      keyring.stdin!.end(state === "unlocked" ? PASSWORD : "");
      const deadline = Date.now() + HANG_MS;
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
