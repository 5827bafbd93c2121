/** `petstore auth logout`: removes the stored key of a profile; its other settings stay. */
import type { Command } from "commander";
import type { Factory } from "../factory.js";
import { addExamples } from "../help-layout.js";
import { storedProfile } from "../../profiles/config-file.js";
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
  if (storedProfile(config, profile)?.apiKey === undefined) {
    factory.io.stderr.write(`profile ${profile} has no stored key; nothing to remove\n`);
    return;
  }
  await factory.updateConfig((config) => {
    const { apiKey: _removed, ...rest } = storedProfile(config, profile) ?? {};
    config.profiles[profile] = rest;
  });
  factory.io.stderr.write(`Removed the API key of profile ${profile}.\n`);
}
