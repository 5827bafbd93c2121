/** `petstore profile remove <profile>`: deletes a profile and its key (from the keyring too). */
import type { Factory } from "../factory.js";
import type { CommandRunner } from "../runner.js";
import { removeKeyringKey } from "../../profiles/key-store.js";
import { existingProfile } from "./stored.js";

export async function profileRemoveRun(name: string, factory: Factory): Promise<void> {
  const { keyring } = existingProfile(factory.config(), name);
  if (keyring !== undefined) await removeKeyringKey(factory.env, name, keyring);
  await factory.updateConfig((config) => {
    delete config.profiles[name];
    if (config.currentProfile === name) delete config.currentProfile;
  });
  factory.io.stderr.write(`Removed profile ${name}.\n`);
}

export const run: CommandRunner = (parsed, factory) =>
  profileRemoveRun(parsed.args[0] ?? "", factory);
