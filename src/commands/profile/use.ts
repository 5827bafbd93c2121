/** `petstore profile use <profile>`: the default profile of later runs (PETSTORE_PROFILE and --profile still win). */
import type { Command } from "commander";
import type { Factory } from "../factory.js";
import { addExamples } from "../help-layout.js";
import { addProfileArgument, existingProfile } from "./stored.js";

export function profileUseCommand(profile: Command, factory: Factory): void {
  const command = addProfileArgument(
    profile.command("use").description("make a profile the default for later runs"),
    true,
  ).action((name: string) => profileUseRun(name, factory));
  addExamples(command, ["petstore profile use staging"]);
}

export async function profileUseRun(name: string, factory: Factory): Promise<void> {
  existingProfile(factory.config(), name);
  await factory.updateConfig((config) => {
    config.currentProfile = name;
  });
  factory.io.stderr.write(`Now using profile ${name}.\n`);
}
