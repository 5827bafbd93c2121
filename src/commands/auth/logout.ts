/**
 * `petstore auth logout`: removes the stored key of a profile, from the system keyring
 * or the config file; its other settings stay.
 */
import type { Command } from "commander";
import type { Factory } from "../factory.js";
import { addExamples } from "../help-layout.js";
import { storedProfile } from "../../profiles/config-file.js";
import { removeKeyringKey } from "../../profiles/key-store.js";
import { addProfileOption } from "./login.js";

export function logoutCommand(auth: Command, factory: Factory): void {
  const command = addProfileOption(
    auth.command("logout").description("remove the stored key of a profile"),
  ).action((flags: { profile?: string }) => logoutRun(flags.profile, factory));
  addExamples(command, ["petstore auth logout --profile ci"]);
}

export async function logoutRun(name: string | undefined, factory: Factory): Promise<void> {
  // The stored config first: it is needed, even when flags and environment give the rest.
  const config = factory.config();
  const { profile } = factory.settings({ profile: name }, { allowNewProfile: true });
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
