// A Secret Service of a test's (or the bench's) own: a private D-Bus session bus
// (dbus-daemon) and GNOME Keyring on it, both children of the caller, with every file in
// its directory (the keyrings in `<dir>/home/.local/share/keyrings`). The bus starts no
// service by itself (no service directories), so nothing answers on it but what the
// caller starts: no keyring at all, an unlocked one, a locked one, whose unlock
// prompt finds no prompter and is dismissed at once, as on a machine with no display,
// or a hung one: a connection of the caller's own that owns the Secret Service's name
// and never answers a call.
// `lookup` and `clear` are libsecret's `secret-tool`, a client that is not petstore.
// Used by test/e2e/keyring.test.ts, test/dist/ and bench/phases/keyring-read.mjs; the
// packages it needs are in scripts/system-packages.mjs.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
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

/**
 * A call to the bus itself in D-Bus's little-endian wire format, with string
 * (`s`) and uint32 (`u`) arguments.
 */
function busCall(serial, member, signature = "", args = []) {
  const bytes = [];
  const pad = (to) => {
    while (bytes.length % to !== 0) bytes.push(0);
  };
  const uint32 = (value) => {
    pad(4);
    bytes.push(...new Uint8Array(new Uint32Array([value]).buffer));
  };
  const string = (text) => {
    uint32(Buffer.byteLength(text));
    bytes.push(...Buffer.from(text), 0);
  };
  const fields = [
    [1, "o", "/org/freedesktop/DBus"],
    [2, "s", "org.freedesktop.DBus"],
    [3, "s", member],
    [6, "s", "org.freedesktop.DBus"],
  ];
  if (signature) fields.push([8, "g", signature]);
  for (const [code, type, value] of fields) {
    pad(8);
    bytes.push(code, 1, type.charCodeAt(0), 0);
    if (type === "g") bytes.push(value.length, ...Buffer.from(value), 0);
    else string(value);
  }
  const fieldsLength = bytes.length;
  pad(8);
  const bodyStart = bytes.length;
  [...signature].forEach((type, i) => (type === "u" ? uint32(args[i]) : string(args[i])));
  const header = Buffer.alloc(16);
  header.set([0x6c, 1, 0, 1]);
  header.writeUInt32LE(bytes.length - bodyStart, 4);
  header.writeUInt32LE(serial, 8);
  header.writeUInt32LE(fieldsLength, 12);
  return Buffer.concat([header, Buffer.from(bytes)]);
}

/** A Secret Service that hangs: owns org.freedesktop.secrets on the bus, never answers. */
async function hungSecretService(address) {
  const socket = connect(address.match(/unix:path=([^,;]+)/)[1]);
  socket.write(
    `\0AUTH EXTERNAL ${Buffer.from(String(process.getuid())).toString("hex")}\r\nBEGIN\r\n`,
  );
  socket.write(busCall(1, "Hello"));
  socket.write(busCall(2, "RequestName", "su", ["org.freedesktop.secrets", 0]));
  socket.on("data", () => {});
  socket.on("error", () => {});
  return socket;
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
  let hung;
  const waitForSecrets = async (exited) => {
    const deadline = Date.now() + START_LIMIT_MS;
    while (!ownerOfSecrets(childEnv)) {
      if (exited()) throw new Error("the keyring exited at start");
      if (Date.now() > deadline) throw new Error("the keyring did not come up");
      await sleep(50);
    }
  };

  return {
    address,
    env,
    async startKeyring(state) {
      if (state === "hung") {
        hung = await hungSecretService(address);
        await waitForSecrets(() => hung.destroyed);
        return;
      }
      const unlock = state === "unlocked" ? ["--unlock"] : [];
      keyring = spawn("gnome-keyring-daemon", ["--foreground", "--components=secrets", ...unlock], {
        env: childEnv,
        stdio: ["pipe", "ignore", "ignore"],
      });
      keyring.stdin.end(state === "unlocked" ? PASSWORD : "");
      await waitForSecrets(() => keyring.exitCode !== null);
    },
    async stopKeyring() {
      hung?.destroy();
      await stop(keyring);
    },
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
      hung?.destroy();
      await stop(keyring);
      await stop(bus);
    },
  };
}
