/**
 * `petstore auth login`: stores an API key in a profile. The key comes from stdin
 * (`--with-token`), a file, or a prompt that does not echo; never from a flag
 * value, which any user of the machine could read in the process list.
 */
import {
  isEnvironmentName,
  parseBaseUrl,
  ENVIRONMENT_NAMES,
  type EnvironmentName,
} from "../../profiles/environments.js";
import { UsageError } from "../../errors.js";
import type { Factory } from "../factory.js";
import { configDir } from "../../profiles/config-dir.js";
import type { ProfileConfig } from "../../profiles/config-file.js";
import { storedProfile } from "../profile/stored.js";
import type { OptionValues } from "../fast-parse.js";
import { booleanOption, stringOption } from "../option-values.js";
import type { CommandRunner } from "../runner.js";
import { KEY_HINT, type KeySource, readKey } from "./read-key.js";

export type { KeySource } from "./read-key.js";

export interface LoginOptions {
  profile?: string;
  env?: EnvironmentName;
  baseUrl?: string;
  keySource: KeySource;
}

export function loginOptionsFrom(values: OptionValues, stdinIsTTY: boolean): LoginOptions {
  const options: LoginOptions = { keySource: { kind: "prompt" } };
  const profile = stringOption(values, "profile");
  if (profile !== undefined) options.profile = profile;
  const env = stringOption(values, "env");
  if (env !== undefined) {
    if (!isEnvironmentName(env)) {
      throw new UsageError(
        `--env must be one of ${ENVIRONMENT_NAMES.join(", ")}; got ${JSON.stringify(env)}`,
      );
    }
    options.env = env;
  }
  const baseUrl = stringOption(values, "baseUrl");
  if (baseUrl !== undefined) {
    const parsed = parseBaseUrl(baseUrl);
    if (!parsed.ok) throw new UsageError(`--base-url ${parsed.problem}`);
    options.baseUrl = parsed.url;
  }
  const keyFile = stringOption(values, "apiKeyFile");
  const withToken = booleanOption(values, "withToken");
  if (withToken && keyFile !== undefined) {
    throw new UsageError("--with-token reads the key from stdin; it conflicts with --api-key-file");
  }
  if (withToken) options.keySource = { kind: "stdin" };
  else if (keyFile !== undefined) options.keySource = { kind: "file", path: keyFile };
  else if (!stdinIsTTY)
    throw new UsageError("no API key given and stdin is not a terminal", KEY_HINT);
  return options;
}

export async function loginRun(options: LoginOptions, factory: Factory): Promise<void> {
  const flags = options.profile === undefined ? {} : { profile: options.profile };
  const { profile } = factory.settings(flags, { allowNewProfile: true, replacingConfig: true });
  // No place for the file (no HOME, no home directory): say so before asking for the key.
  configDir(factory.env);
  const apiKey = await readKey(options.keySource, factory.io);
  const update = await factory.updateConfig(
    (config) => {
      const stored: ProfileConfig = { ...storedProfile(config, profile), apiKey };
      if (options.env !== undefined) stored.env = options.env;
      if (options.baseUrl !== undefined) {
        stored.baseUrls = {
          ...stored.baseUrls,
          [options.env ?? stored.env ?? "production"]: options.baseUrl,
        };
      }
      config.profiles[profile] = stored;
      config.currentProfile ??= profile;
    },
    { replaceBroken: true },
  );
  const { stderr } = factory.io;
  if (update.replaced !== undefined) {
    stderr.write(
      `warning: ${update.replaced.message}; kept it as ${update.backup} and wrote a new one\n`,
    );
  }
  const env = storedProfile(update.config, profile)?.env ?? "production";
  stderr.write(
    `Stored the API key in profile ${profile} (${env}) in ${update.path}. \`petstore auth status\` checks it.\n`,
  );
}

export const run: CommandRunner = (parsed, factory) =>
  loginRun(loginOptionsFrom(parsed.options, factory.io.stdin.isTTY), factory);
