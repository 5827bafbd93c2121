/** `petstore profile remove <profile>`: deletes a profile and its key (from the keyring too). */
import type { Command } from "commander";
import type { Factory } from "../factory.js";
import { addExamples } from "../help-layout.js";
import { removeKeyringKey } from "../../profiles/key-store.js";
import { addProfileArgument, existingProfile } from "./stored.js";

export function profileRemoveCommand(profile: Command, factory: Factory): void {
  const command = addProfileArgument(
    profile.command("remove").description("delete a stored profile and its key"),
    true,
  ).action((name: string) => profileRemoveRun(name, factory));
  addExamples(command, ["petstore profile remove old"]);
}

export async function profileRemoveRun(name: string, factory: Factory): Promise<void> {
  const { keyring } = existingProfile(factory.config(), name);
  if (keyring !== undefined) await removeKeyringKey(factory.env, name, keyring);
  await factory.updateConfig((config) => {
    delete config.profiles[name];
    if (config.currentProfile === name) delete config.currentProfile;
  });
  factory.io.stderr.write(`Removed profile ${name}.\n`);
}
