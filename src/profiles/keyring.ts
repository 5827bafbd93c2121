/**
 * The system keyring, loaded (as dist/keyring.cjs) only by a run that reads or writes
 * a key there: the Secret Service on Linux (GNOME Keyring, KWallet), the Credential
 * Manager on Windows, the Keychain on macOS, through @napi-rs/keyring's binding
 * (keyring-binding.ts).
 *
 * On Linux only the Secret Service counts. Without one, the binding would fall back
 * to the kernel's keyring (keyutils), which refuses writes on many machines and
 * forgets what it holds at logout: not a place to keep a key. So every entry is
 * pinned to the Secret Service, and made only once the session bus has answered
 * within KEYRING_TIMEOUT_MS (session-bus.ts): a bus that hangs costs that long,
 * never a command that never ends.
 */
import { EXIT, PetstoreError } from "../errors.js";
import { loadBinding, type Binding } from "./keyring-binding.js";
import { KEYRING_SERVICE, keyringName } from "./keyring-name.js";
import { isKeyText } from "./key-text.js";
import { probeSessionBus } from "./session-bus.js";

export const KEYRING_TIMEOUT_MS = 3000;

/** The entry of one account in the keyring. */
export interface KeyringEntry {
  /** "the Secret Service keyring", "the Windows Credential Manager", "the macOS Keychain". */
  readonly name: string;
  /** The key, or undefined when it holds none; throws when the keyring refuses. */
  read(): string | undefined;
  write(key: string): void;
  /** False when there was nothing to remove. */
  remove(): boolean;
}

/** The session bus the binding will connect to, as libdbus finds it. */
function sessionBus(env: NodeJS.ProcessEnv): string {
  if (env.DBUS_SESSION_BUS_ADDRESS) return env.DBUS_SESSION_BUS_ADDRESS;
  if (env.XDG_RUNTIME_DIR) return `unix:path=${env.XDG_RUNTIME_DIR}/bus`;
  throw new Error("no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set)");
}

/** Calls the binding; its errors become plain sentences ("... unlock prompt was dismissed"). */
function native<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    const message = (error as Error).message;
    throw new Error(message.replace(/^(Couldn't access platform storage|Platform failure): /, ""));
  }
}

/**
 * The entry of `account` once the keyring answers; throws an Error saying why there
 * is none (no binding for the platform, no D-Bus session, no answer in time, no
 * Secret Service on it: on Linux the entry opens a session with the service).
 */
export async function openKeyring(env: NodeJS.ProcessEnv, account: string): Promise<KeyringEntry> {
  const name = keyringName();
  if (name === undefined)
    throw new Error(`petstore has no keyring binding for ${process.platform}`);
  const linux = process.platform === "linux";
  // Started first: its round trip goes on while the binding loads.
  const answered = linux
    ? probeSessionBus(sessionBus(env), process.getuid!(), KEYRING_TIMEOUT_MS).catch(
        (error: Error) => error,
      )
    : undefined;
  let binding: Binding;
  try {
    binding = loadBinding();
  } catch (error) {
    await answered;
    throw new Error(`its binding cannot be loaded (${(error as Error).message.split("\n")[0]})`);
  }
  const problem = await answered;
  if (problem) throw new Error(problem.message);
  const options = linux ? { linux: { store: "secret-service" as const } } : undefined;
  let entry;
  try {
    entry = native(() => new binding.Entry(KEYRING_SERVICE, account, options));
  } catch (error) {
    throw new Error(`no Secret Service answers on the D-Bus session (${(error as Error).message})`);
  }
  return {
    name,
    read: () => native(() => entry.getPassword()) ?? undefined,
    write: (key) => native(() => entry.setPassword(key)),
    remove: () => native(() => entry.deleteCredential()),
  };
}

const KEYRING_HINT =
  "unlock or start it and run again; PETSTORE_API_KEY gives a key for one run, and `petstore auth login --insecure-storage` keeps one in the config file";

/** The key of `profile`, kept in the keyring as `account`; a PetstoreError (exit 3) naming the keyring when it cannot be read. */
export async function readKeyringKey(
  env: NodeJS.ProcessEnv,
  profile: string,
  account: string,
): Promise<string> {
  const where = `the API key of profile ${profile} is in ${keyringName() ?? "a system keyring"}`;
  let key: string | undefined;
  try {
    key = (await openKeyring(env, account)).read();
  } catch (error) {
    throw new PetstoreError(
      `${where}, which cannot be read: ${(error as Error).message}`,
      EXIT.AUTH,
      KEYRING_HINT,
    );
  }
  if (key === undefined) {
    throw new PetstoreError(
      `${where}, which no longer holds it`,
      EXIT.AUTH,
      "`petstore auth login` stores a key again",
    );
  }
  if (!isKeyText(key)) {
    throw new PetstoreError(
      `${where}, where it contains spaces or control characters`,
      EXIT.AUTH,
      "`petstore auth login` stores it again",
    );
  }
  return key;
}
