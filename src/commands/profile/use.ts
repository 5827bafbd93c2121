/** `petstore profile use <profile>`: the default profile of later runs (PETSTORE_PROFILE and --profile still win). */
import type { Factory } from "../factory.js";
import type { CommandRunner } from "../runner.js";
import { existingProfile } from "./stored.js";

export async function profileUseRun(name: string, factory: Factory): Promise<void> {
  existingProfile(factory.config(), name);
  await factory.updateConfig((config) => {
    config.currentProfile = name;
  });
  factory.io.stderr.write(`Now using profile ${name}.\n`);
}

export const run: CommandRunner = (parsed, factory) => profileUseRun(parsed.args[0] ?? "", factory);
