/**
 * `petstore auth logout`: removes the stored key of a profile, from the system keyring
 * or the config file; its other settings stay.
 */
import type { Factory } from "../factory.js";
import type { CommandRunner } from "../runner.js";
import { removeKeyringKey } from "../../profiles/key-store.js";
import { stringOption } from "../option-values.js";
import { storedProfile } from "../profile/stored.js";

export interface LogoutOptions {
  profile?: string;
}

export async function logoutRun(options: LogoutOptions, factory: Factory): Promise<void> {
  const flags = options.profile === undefined ? {} : { profile: options.profile };
  // The stored config first: it is needed, even when flags and environment give the rest.
  const config = factory.config();
  const { profile } = factory.settings(flags, { allowNewProfile: true });
  const stored = storedProfile(config, profile);
  if (stored?.apiKey === undefined && stored?.keyring === undefined) {
    factory.io.stderr.write(`profile ${profile} has no stored key; nothing to remove\n`);
    return;
  }
  if (stored.keyring !== undefined) await removeKeyringKey(factory.env, profile, stored.keyring);
  await factory.updateConfig((config) => {
    const { apiKey: _file, keyring: _keyring, ...rest } = storedProfile(config, profile) ?? {};
    config.profiles[profile] = rest;
  });
  factory.io.stderr.write(`Removed the API key of profile ${profile}.\n`);
}

export const run: CommandRunner = (parsed, factory) => {
  const profile = stringOption(parsed.options, "profile");
  return logoutRun(profile === undefined ? {} : { profile }, factory);
};
