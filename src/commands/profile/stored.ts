/** Lookups in the stored config that never mistake `constructor` or `toString` for a profile. */
import { UsageError } from "../../errors.js";
import {
  storedProfile,
  type ProfileConfig,
  type StoredConfig,
} from "../../profiles/config-file.js";

export { storedProfile } from "../../profiles/config-file.js";

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
