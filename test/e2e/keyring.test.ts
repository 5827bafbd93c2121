/**
 * The key in the system keyring, through the real CLI (the packed npm package, which
 * loads the binding npm installed for this platform): GNOME Keyring on a D-Bus session
 * of this file's own (scripts/secret-service.mjs), and every way it can be missing,
 * locked, hung or emptied. Whatever happens, the key is either where the CLI says it
 * is or refused with a message naming the keyring; never lost, never in the file
 * without a word.
 */
import { createServer, type Server, type Socket } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { KEYRING_TIMEOUT_MS } from "../../src/profiles/keyring.js";
import { keyringAccount } from "../../src/profiles/keyring-name.js";
import type { RunningServer } from "../../src/server/server.js";
import { startSecretService, type SecretService } from "../../scripts/secret-service.mjs";
import { PRO_KEY, runCli, startFake, tempDir } from "./harness.js";

const KEYRING = "the Secret Service keyring";

let server: RunningServer;
let session: ReturnType<typeof tempDir>;
let secrets: SecretService;
let config: ReturnType<typeof tempDir>;

beforeAll(async () => {
  server = await startFake();
  session = tempDir();
  secrets = await startSecretService(session.path);
  await secrets.startKeyring("unlocked");
});

afterAll(async () => {
  await secrets?.close();
  await server?.close();
  session?.remove();
});

beforeEach(() => {
  config = tempDir();
});
afterEach(() => config.remove());

/** The CLI against the fake, with this file's bus (or `bus`) and no key from the environment. */
function petstore(args: string[], options: { stdin?: string; env?: NodeJS.ProcessEnv } = {}) {
  return runCli(args, {
    stdin: options.stdin,
    env: {
      PETSTORE_CONFIG_DIR: config.path,
      PETSTORE_BASE_URL: server.url,
      ...secrets.env,
      ...options.env,
    },
  });
}

const login = (flags: string[] = [], env: NodeJS.ProcessEnv = {}) =>
  petstore(["auth", "login", "--with-token", ...flags], { stdin: `${PRO_KEY}\n`, env });

function storedProfile(name = "default"): Record<string, unknown> {
  const stored = JSON.parse(readFileSync(join(config.path, "config.json"), "utf8")) as {
    profiles: Record<string, Record<string, unknown>>;
  };
  return stored.profiles[name]!;
}

const account = (profile = "default") => keyringAccount(profile, config.path);

/** Runs `test` with the keyring stopped, or started locked or hung, then brings the unlocked one back. */
async function withKeyring(
  state: "stopped" | "locked" | "hung",
  test: () => Promise<void>,
): Promise<void> {
  await secrets.stopKeyring();
  try {
    if (state !== "stopped") await secrets.startKeyring(state);
    await test();
  } finally {
    await secrets.stopKeyring();
    await secrets.startKeyring("unlocked");
  }
}

describe("with GNOME Keyring on the D-Bus session", () => {
  it("keeps the key there: secret-tool finds it, config.json has none; list uses it, auth status says where, logout removes it", async () => {
    const stored = await login();
    expect(stored.code, stored.stderr).toBe(0);
    expect(stored.stderr).toContain(`in profile default (production) in ${KEYRING}.\n`);
    expect(secrets.lookup(account())).toBe(PRO_KEY);
    expect(storedProfile()).toEqual({
      keyring: account(),
      baseUrls: { production: server.url },
    });
    expect(readFileSync(join(config.path, "config.json"), "utf8")).not.toContain(PRO_KEY);

    const listed = await petstore(["list", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);

    const status = await petstore(["auth", "status"]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`(from profile default, in ${KEYRING})`);
    expect(status.stdout).toContain("Key:         accepted");
    const json = await petstore(["auth", "status", "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ keyStore: "keyring", key: "accepted" });
    const profiles = await petstore(["profile", "list"]);
    expect(profiles.stdout).toMatch(/\tkeyring\n$/);

    const logout = await petstore(["auth", "logout"]);
    expect(logout.code, logout.stderr).toBe(0);
    expect(secrets.lookup(account())).toBeUndefined();
    expect(storedProfile()).toEqual({ baseUrls: { production: server.url } });
    expect((await petstore(["list"])).code).toBe(3);
  });

  it("moves a key kept in the file into the keyring on a second login, and back to the file when asked", async () => {
    const inFile = await login(["--insecure-storage"]);
    expect(inFile.stderr).toContain(
      `in ${join(config.path, "config.json")}, not in a system keyring: --insecure-storage asks for the file.\n`,
    );
    expect(storedProfile().apiKey).toBe(PRO_KEY);
    expect(secrets.lookup(account())).toBeUndefined();
    const status = await petstore(["auth", "status"]);
    expect(status.stdout).toContain("(from profile default, in the config file)");
    expect(status.stdout).toContain(
      `Keyring:     ${KEYRING} answers: \`petstore auth login\` moves the key there`,
    );

    expect((await login()).code).toBe(0);
    expect(storedProfile()).not.toHaveProperty("apiKey");
    expect(secrets.lookup(account())).toBe(PRO_KEY);

    const back = await login([], { PETSTORE_INSECURE_STORAGE: "1" });
    expect(back.stderr).toContain(
      "not in a system keyring: PETSTORE_INSECURE_STORAGE=1 asks for the file.\n",
    );
    expect(storedProfile()).toMatchObject({ apiKey: PRO_KEY });
    expect(storedProfile()).not.toHaveProperty("keyring");
    expect(secrets.lookup(account())).toBeUndefined();
  });

  it("profile remove takes the profile's key out of the keyring, and leaves the others' there", async () => {
    await login(["--profile", "ci"]);
    await login(["--profile", "other"]);
    const removed = await petstore(["profile", "remove", "ci"]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(secrets.lookup(account("ci"))).toBeUndefined();
    expect(secrets.lookup(account("other"))).toBe(PRO_KEY);
  });

  it("keeps the keys of two config directories apart", async () => {
    await login();
    const elsewhere = tempDir();
    try {
      const second = await runCli(["auth", "login", "--with-token", "--no-verify"], {
        stdin: "another-key-0123456789",
        env: { PETSTORE_CONFIG_DIR: elsewhere.path, ...secrets.env },
      });
      expect(second.code, second.stderr).toBe(0);
      expect(secrets.lookup(account())).toBe(PRO_KEY);
      expect(secrets.lookup(keyringAccount("default", elsewhere.path))).toBe(
        "another-key-0123456789",
      );
    } finally {
      elsewhere.remove();
    }
  });

  it("says which key the keyring lost when another program removed it (exit 3)", async () => {
    await login();
    secrets.clear(account());
    const listed = await petstore(["list"]);
    expect(listed.code).toBe(3);
    expect(listed.stderr).toContain(
      `error: the API key of profile default is in ${KEYRING}, which no longer holds it\n`,
    );
  });
});

describe("without a keyring that answers", () => {
  it("keeps the key in the file at once when there is no D-Bus session, and says why", async () => {
    const started = Date.now();
    const stored = await login([], { DBUS_SESSION_BUS_ADDRESS: undefined });
    // No waiting for the keyring's time limit: nothing was there to wait for.
    expect(Date.now() - started).toBeLessThan(KEYRING_TIMEOUT_MS);
    expect(stored.code, stored.stderr).toBe(0);
    expect(stored.stderr).toContain(
      `in ${join(config.path, "config.json")}, not in a system keyring: no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set).\n`,
    );
    expect(storedProfile().apiKey).toBe(PRO_KEY);
    const status = await petstore(["auth", "status", "--json"], {
      env: { DBUS_SESSION_BUS_ADDRESS: undefined },
    });
    expect(JSON.parse(status.stdout)).toMatchObject({
      keyStore: "file",
      keyringProblem: "no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set)",
    });
  });

  it("keeps the key in the file when the bus has no Secret Service, and a key kept in the keyring is refused with exit 3, not lost", async () => {
    await login(["--profile", "kept"]);
    await withKeyring("stopped", async () => {
      const stored = await login(["--profile", "other"]);
      expect(stored.stderr).toContain(
        "not in a system keyring: no Secret Service answers on the D-Bus session (DBus error: The name org.freedesktop.secrets was not provided by any .service files).\n",
      );
      expect(storedProfile("other").apiKey).toBe(PRO_KEY);

      const listed = await petstore(["list", "--profile", "kept"]);
      expect(listed.code).toBe(3);
      expect(listed.stderr).toContain(
        `error: the API key of profile kept is in ${KEYRING}, which cannot be read: no Secret Service answers on the D-Bus session`,
      );
      expect(listed.stderr).toContain("hint: unlock or start it and run again");
    });
    expect(storedProfile("kept")).toEqual({
      keyring: account("kept"),
      baseUrls: { production: server.url },
    });
    expect((await petstore(["list", "--profile", "kept"])).code).toBe(0);
  });

  it("a locked keyring: reading and logout exit 3 naming it, login keeps the key in the file saying the keyring refused it", async () => {
    await login(["--profile", "kept"]);
    await withKeyring("locked", async () => {
      const listed = await petstore(["list", "--profile", "kept"]);
      expect(listed.code).toBe(3);
      expect(listed.stderr).toMatch(
        /error: the API key of profile kept is in the Secret Service keyring, which cannot be read: .*unlock prompt was dismissed/,
      );
      const logout = await petstore(["auth", "logout", "--profile", "kept"]);
      expect(logout.code).toBe(3);
      expect(logout.stderr).toMatch(
        /error: cannot remove the API key of profile kept from the Secret Service keyring: .*dismissed/,
      );
      expect(storedProfile("kept")).toHaveProperty("keyring", account("kept"));

      const stored = await login(["--profile", "other"]);
      expect(stored.code, stored.stderr).toBe(0);
      expect(stored.stderr).toMatch(
        /, not in a system keyring: the Secret Service keyring refused it: .*dismissed\.\n/,
      );
      expect(storedProfile("other").apiKey).toBe(PRO_KEY);
    });
    expect(secrets.lookup(account("kept"))).toBe(PRO_KEY);
  });

  it("a Secret Service that hangs: libdbus gives up on each call (2 s), login keeps the key in the file, a read exits 3", async () => {
    await login(["--profile", "kept"]);
    const noAnswer =
      "no Secret Service answers on the D-Bus session (DBus error: Did not receive a reply.";
    await withKeyring("hung", async () => {
      const stored = await login(["--profile", "other"]);
      expect(stored.code, stored.stderr).toBe(0);
      expect(stored.stderr).toContain(`, not in a system keyring: ${noAnswer}`);
      expect(storedProfile("other").apiKey).toBe(PRO_KEY);
      const listed = await petstore(["list", "--profile", "kept"]);
      expect(listed.code).toBe(3);
      expect(listed.stderr).toContain(`which cannot be read: ${noAnswer}`);
    });
    expect(secrets.lookup(account("kept"))).toBe(PRO_KEY);
  });

  describe("a D-Bus session that accepts connections and never answers", () => {
    let hung: Server;
    const held: Socket[] = [];
    let env: NodeJS.ProcessEnv;

    beforeAll(async () => {
      const path = join(session.path, "hung-bus");
      hung = createServer((socket) => held.push(socket));
      await new Promise<void>((resolve) => hung.listen(path, resolve));
      env = { DBUS_SESSION_BUS_ADDRESS: `unix:path=${path}` };
    });
    afterAll(async () => {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => hung.close(resolve));
    });

    it("keeps the key in the file once the time limit has passed, and says so", async () => {
      const started = Date.now();
      const stored = await login([], env);
      const tookMs = Date.now() - started;
      expect(tookMs).toBeGreaterThanOrEqual(KEYRING_TIMEOUT_MS);
      // Bounded by our limit, not libdbus's 25 s default (the margin is for a loaded machine).
      expect(tookMs).toBeLessThan(KEYRING_TIMEOUT_MS + 10_000);
      expect(stored.code, stored.stderr).toBe(0);
      expect(stored.stderr).toContain(
        `not in a system keyring: no answer from the D-Bus session within ${KEYRING_TIMEOUT_MS / 1000} s.\n`,
      );
      expect(storedProfile().apiKey).toBe(PRO_KEY);
    });

    it("refuses a key kept in the keyring with exit 3 after the time limit; PETSTORE_API_KEY is used as before, without it", async () => {
      await login();
      const listed = await petstore(["list"], { env });
      expect(listed.code).toBe(3);
      expect(listed.stderr).toContain(
        `which cannot be read: no answer from the D-Bus session within ${KEYRING_TIMEOUT_MS / 1000} s`,
      );
      const started = Date.now();
      const withVariable = await petstore(["list"], { env: { ...env, PETSTORE_API_KEY: PRO_KEY } });
      expect(withVariable.code, withVariable.stderr).toBe(0);
      expect(Date.now() - started).toBeLessThan(KEYRING_TIMEOUT_MS);
    });
  });
});
