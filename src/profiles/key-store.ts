/**
 * Where a profile's key is kept: in the system keyring when one answers (keyring.ts),
 * else in the config file, 0600, as before. The profile says which: `keyring` (the
 * account of its key there) or `apiKey` (the key itself). `auth login` puts a key in
 * the keyring, or in the file when `--insecure-storage` or PETSTORE_INSECURE_STORAGE=1
 * asks for it or no keyring can take it, and says which and why; `auth logout` and
 * `profile remove` take it away from wherever it is. Reading it is the factory's
 * (keyring.ts, readKeyringKey).
 */
import { envSwitch } from "../env-flag.js";
import { EXIT, PetstoreError } from "../errors.js";
import { configDir } from "./config-dir.js";
import type { ProfileConfig } from "./config-file.js";
import { KEYRING_SERVICE, keyringAccount, keyringName } from "./keyring-name.js";

/** Why the key goes to the file on purpose, when it does. */
export function insecureStorage(flag: boolean, env: NodeJS.ProcessEnv): string | undefined {
  if (flag) return "--insecure-storage asks for the file";
  const name = "PETSTORE_INSECURE_STORAGE";
  return envSwitch(env, name) ? `${name}=1 asks for the file` : undefined;
}

export interface KeyPlacement {
  /** The profile's fields that hold the key: `keyring` (its account there) or `apiKey`. */
  fields: Pick<ProfileConfig, "apiKey" | "keyring">;
  /** Where it went, for the line that says so: the keyring, or `file` and why not a keyring. */
  describe(file: string): string;
}

/**
 * Puts `key` in the keyring, unless `toFile` says why not to; when the keyring cannot
 * take it, the placement is the file, with the keyring's reason. The config is the
 * caller's to write.
 */
export async function placeKey(
  env: NodeJS.ProcessEnv,
  profile: string,
  key: string,
  toFile: string | undefined,
): Promise<KeyPlacement> {
  let why = toFile;
  if (why === undefined) {
    const account = keyringAccount(profile, configDir(env));
    const { openKeyring } = await import("./keyring.js");
    try {
      const keyring = await openKeyring(env, account);
      try {
        keyring.write(key);
        return { fields: { keyring: account }, describe: () => keyring.name };
      } catch (error) {
        why = `${keyring.name} refused it: ${(error as Error).message}`;
      }
    } catch (error) {
      why = (error as Error).message;
    }
  }
  return {
    fields: { apiKey: key },
    describe: (file) => `${file}, not in a system keyring: ${why}`,
  };
}

/** Why no keyring could take a key here (for `auth status`), or null when one answers. */
export async function keyringProblem(env: NodeJS.ProcessEnv): Promise<string | null> {
  const { openKeyring } = await import("./keyring.js");
  // Any account: opening its entry is what asks the Secret Service (nothing is stored).
  return openKeyring(env, KEYRING_SERVICE).then(
    () => null,
    (error: Error) => error.message,
  );
}

/**
 * Removes `which` key (the profile's key, kept in the keyring as `account`), for
 * logout and profile remove; throws (exit 3, naming the keyring) when the keyring
 * cannot be used, so that the profile is not changed and says where the key still is.
 */
export async function removeKeyringKey(
  env: NodeJS.ProcessEnv,
  profile: string,
  account: string,
  which = "the API key",
): Promise<void> {
  try {
    const { openKeyring } = await import("./keyring.js");
    (await openKeyring(env, account)).remove();
  } catch (error) {
    throw new PetstoreError(
      `cannot remove ${which} of profile ${profile} from ${keyringName() ?? "the system keyring"}: ${(error as Error).message}`,
      EXIT.AUTH,
      "unlock or start it and run again; the profile is unchanged",
    );
  }
}

/**
 * After a login put the key elsewhere: removes the previous one from the keyring; a
 * warning when it stays there.
 */
export async function dropOldKeyringKey(
  env: NodeJS.ProcessEnv,
  profile: string,
  account: string,
): Promise<string | undefined> {
  return removeKeyringKey(env, profile, account, "the previous API key").then(
    () => undefined,
    (error: Error) => error.message,
  );
}
