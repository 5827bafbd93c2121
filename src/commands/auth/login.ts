/**
 * `petstore auth login`: stores an API key in a profile. The key comes from stdin
 * (`--with-token`), a file, or a prompt that does not echo; never from a flag
 * value, which any user of the machine could read in the process list. It first
 * says which profile, environment and base URL the key is for, then checks the
 * key with one `GET /pets?limit=1` (unless `--no-verify`): a key the service
 * rejects, or one that cannot be checked, is not stored (as gh does). The base
 * URL is stored with the key when given (`--base-url`), and when the key was
 * checked against PETSTORE_BASE_URL. The key goes to the system keyring, or to the
 * config file (profiles/key-store.ts), and the last line says which.
 */
import {
  isEnvironmentName,
  parseBaseUrl,
  ENVIRONMENT_NAMES,
  type EnvironmentName,
} from "../../profiles/environments.js";
import { UsageError } from "../../errors.js";
import type { Factory } from "../factory.js";
import { checkConfigDir, type ProfileConfig } from "../../profiles/config-file.js";
import type { SettingsFlags } from "../../profiles/resolve.js";
import { dropOldKeyringKey, insecureStorage, placeKey } from "../../profiles/key-store.js";
import { storedProfile } from "../profile/stored.js";
import type { OptionValues } from "../fast-parse.js";
import { booleanOption, stringOption } from "../option-values.js";
import type { CommandRunner } from "../runner.js";
import { KEY_HINT, type KeySource, readKey } from "./read-key.js";
import { verifyKey } from "./verify-key.js";
import { routeTo } from "../proxy-route.js";
import { loadPalette } from "../../output/palette.js";
import { formatLines, settingsLines } from "../settings-summary.js";

export type { KeySource } from "./read-key.js";

export interface LoginOptions {
  profile?: string;
  env?: EnvironmentName;
  baseUrl?: string;
  keySource: KeySource;
  /** false with --no-verify: store the key without asking the service. */
  verify?: boolean;
  /** --insecure-storage: the config file, not the system keyring. */
  insecureStorage?: boolean;
}

export function loginOptionsFrom(values: OptionValues, stdinIsTTY: boolean): LoginOptions {
  const options: LoginOptions = {
    keySource: { kind: "prompt" },
    verify: values.verify !== false,
    insecureStorage: booleanOption(values, "insecureStorage"),
  };
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

/** The settings a run with this profile would use, the login's own flags counted as flags. */
function loginFlags(options: LoginOptions): SettingsFlags {
  const flags: SettingsFlags = {};
  if (options.profile !== undefined) flags.profile = options.profile;
  if (options.env !== undefined) flags.env = options.env;
  if (options.baseUrl !== undefined) flags.baseUrl = options.baseUrl;
  return flags;
}

const NEW_PROFILE = { allowNewProfile: true, replacingConfig: true };

export async function loginRun(options: LoginOptions, factory: Factory): Promise<void> {
  const flags = loginFlags(options);
  const settings = factory.settings(flags, NEW_PROFILE);
  const toFile = insecureStorage(options.insecureStorage === true, factory.env);
  const { profile } = settings;
  // No place for the file (no HOME, a file or /proc in the way), or a proxy variable that
  // cannot be used for the check: say so before asking for the key.
  await checkConfigDir(factory.env);
  if (options.verify !== false) routeTo(settings.baseUrl, factory.env, undefined);
  const { stderr } = factory.io;
  const palette = await loadPalette(factory.io, "stderr");
  stderr.write(formatLines(settingsLines(settings, palette).slice(0, 3)));
  const verify = options.verify !== false;
  const fromVariable = settings.sources.baseUrl === "environment";
  if (fromVariable && !verify) {
    stderr.write(
      `${palette.dim("note: PETSTORE_BASE_URL is not stored, as the key is not checked against it; `--base-url` stores one in the profile")}\n`,
    );
  }
  const apiKey = await readKey(options.keySource, factory.io);
  if (verify) {
    stderr.write(await verifyKey(factory, { ...flags, apiKey }, NEW_PROFILE));
  }
  // The address the key was checked against is kept with it (as gh keeps the host it logged
  // in to): else a new shell, without PETSTORE_BASE_URL, would use the key at the default one.
  const baseUrl = options.baseUrl ?? (fromVariable && verify ? settings.baseUrl : undefined);
  const placement = await placeKey(factory.env, profile, apiKey, toFile);
  let previous: string | undefined;
  const update = await factory.updateConfig(
    (config) => {
      const { apiKey: _file, keyring, ...rest } = storedProfile(config, profile) ?? {};
      previous = keyring;
      const stored: ProfileConfig = { ...rest, ...placement.fields };
      if (options.env !== undefined) stored.env = options.env;
      if (baseUrl !== undefined) {
        stored.baseUrls = { ...stored.baseUrls, [stored.env ?? "production"]: baseUrl };
      }
      config.profiles[profile] = stored;
      config.currentProfile ??= profile;
    },
    { replaceBroken: true },
  );
  if (update.replaced !== undefined) {
    stderr.write(
      `warning: ${update.replaced.message}; kept it as ${update.backup} and wrote a new one\n`,
    );
  }
  const env = storedProfile(update.config, profile)?.env ?? "production";
  const checked =
    options.verify === false
      ? " It was not checked (--no-verify): `petstore auth status` checks it."
      : "";
  const what = baseUrl === undefined ? "the API key" : `the API key and the base URL ${baseUrl}`;
  const where = placement.describe(update.path);
  stderr.write(`Stored ${what} in profile ${profile} (${env}) in ${where}.${checked}\n`);
  if (previous !== undefined && previous !== placement.fields.keyring) {
    const left = await dropOldKeyringKey(factory.env, profile, previous);
    if (left !== undefined) stderr.write(`warning: ${left}\n`);
  }
}

export const run: CommandRunner = (parsed, factory) =>
  loginRun(loginOptionsFrom(parsed.options, factory.io.stdin.isTTY), factory);
