/**
 * The system keyring of each platform, as messages and `auth status` name it. The
 * code that talks to it (keyring.ts) is loaded only to read or write a key there.
 */
const KEYRING_NAMES: Partial<Record<NodeJS.Platform, string>> = {
  linux: "the Secret Service keyring",
  win32: "the Windows Credential Manager",
  darwin: "the macOS Keychain",
};

/** Undefined on a platform petstore has no keyring binding for. */
export function keyringName(platform: NodeJS.Platform = process.platform): string | undefined {
  return KEYRING_NAMES[platform];
}

/** The service every key is stored under; the account is keyringAccount's. */
export const KEYRING_SERVICE = "petstore-cli";

/**
 * The account of a profile's key: the profile and the config directory, so that two
 * config directories (PETSTORE_CONFIG_DIR) never share, or overwrite, a key.
 */
export function keyringAccount(profile: string, configDir: string): string {
  return `${profile}@${configDir}`;
}
