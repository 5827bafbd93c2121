/** `petstore profile remove <profile>`: deletes a profile and its key. */
import type { Factory } from "../factory.js";
import type { CommandRunner } from "../runner.js";
import { existingProfile } from "./stored.js";

export async function profileRemoveRun(name: string, factory: Factory): Promise<void> {
  existingProfile(factory.config(), name);
  await factory.updateConfig((config) => {
    delete config.profiles[name];
    if (config.currentProfile === name) delete config.currentProfile;
  });
  factory.io.stderr.write(`Removed profile ${name}.\n`);
}

export const run: CommandRunner = (parsed, factory) =>
  profileRemoveRun(parsed.args[0] ?? "", factory);
