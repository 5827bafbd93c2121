/**
 * The profile a profile command names: its argument, and lookups in the stored
 * config that never mistake `constructor` or `toString` for a profile.
 */
import { Argument, type Command } from "commander";
import { PROFILES, withHint } from "../../completion/hints.js";
import { UsageError } from "../../errors.js";
import {
  storedProfile,
  type ProfileConfig,
  type StoredConfig,
} from "../../profiles/config-file.js";

export function existingProfile(config: StoredConfig, name: string): ProfileConfig {
  const profile = storedProfile(config, name);
  if (profile !== undefined) return profile;
  const names = Object.keys(config.profiles);
  throw new UsageError(
    `there is no profile named ${JSON.stringify(name)}`,
    names.length > 0
      ? `profiles: ${names.join(", ")}`
      : "no profiles are stored; `petstore auth login` creates one",
  );
}

/** The `<profile>` (or `[profile]`) argument of the profile commands. */
export function addProfileArgument(command: Command, required: boolean): Command {
  const name = required ? "<profile>" : "[profile]";
  return command.addArgument(withHint(new Argument(name, "a profile name"), PROFILES));
}
