/**
 * Which profile, environment, base URL and key one run uses. Each field on its
 * own: flags > environment variables > the profile > defaults. `sources` says
 * where each came from (for `auth status` and --verbose); every error names the
 * flag, variable or profile to fix, and never repeats a key.
 */
import { envSwitch } from "../env-flag.js";
import { UsageError } from "../errors.js";
import {
  DEFAULT_BASE_URLS,
  ENVIRONMENT_NAMES,
  type EnvironmentName,
  isEnvironmentName,
  parseBaseUrl,
} from "./environments.js";
import { PROFILE_NAME, storedProfile, type StoredConfig } from "./config-file.js";
import { isKeyText } from "./key-text.js";

const DEFAULT_PROFILE = "default";

export type Source = "flag" | "environment" | "profile" | "default" | "none";

export interface SettingsFlags {
  profile?: string;
  env?: string;
  baseUrl?: string;
  /** From --api-key-file or a test, never from a flag value. */
  apiKey?: string;
  allowInsecure?: boolean;
}

export interface ResolvedSettings {
  profile: string;
  env: EnvironmentName;
  baseUrl: string;
  apiKey?: string;
  /** The profile's key is in the system keyring, as this account: read it before a request (keyring.ts). */
  keyring?: string;
  allowInsecure: boolean;
  sources: { profile: Source; env: Source; baseUrl: Source; apiKey: Source };
}

export interface ResolveOptions {
  /** `auth login --profile new` names a profile that does not exist yet. */
  allowNewProfile?: boolean;
}

interface Candidate {
  source: Exclude<Source, "none">;
  value: string | undefined;
  /** How to name this origin in an error: `--env`, `PETSTORE_ENV`, `profile "work"`. */
  origin: string;
}

type Picked = Candidate & { value: string };

/** The first candidate with a value; an empty variable counts as unset. */
function pick(candidates: Candidate[]): Picked | undefined {
  return candidates.find((c): c is Picked => c.value !== undefined && c.value !== "");
}

/** Bearer tokens are visible ASCII (RFC 6750 allows less); whitespace around one is a copy-paste slip. */
function checkedKey(key: Picked | undefined): string | undefined {
  if (key === undefined) return undefined;
  const trimmed = key.value.trim();
  if (!isKeyText(trimmed)) {
    throw new UsageError(
      `the API key from ${key.origin} contains spaces or control characters (or is blank)`,
      "a key is one word of visible characters; set it again with `petstore auth login`",
    );
  }
  return trimmed;
}

export function resolveSettings(
  flags: SettingsFlags,
  env: NodeJS.ProcessEnv,
  config: StoredConfig,
  options: ResolveOptions = {},
): ResolvedSettings {
  const profile = pick([
    { source: "flag", value: flags.profile, origin: "--profile" },
    { source: "environment", value: env.PETSTORE_PROFILE, origin: "PETSTORE_PROFILE" },
    { source: "profile", value: config.currentProfile, origin: "the current profile" },
  ]) ?? { source: "default", value: DEFAULT_PROFILE, origin: "the default profile" };
  if (!PROFILE_NAME.test(profile.value)) {
    throw new UsageError(
      `${profile.origin} must be a profile name (letters, digits, '.', '_', '-'); got ${JSON.stringify(profile.value)}`,
    );
  }
  const stored = storedProfile(config, profile.value);
  // A mistyped --profile must not quietly fall back to production with another key.
  const named = profile.source === "flag" || profile.source === "environment";
  if (stored === undefined && named && !options.allowNewProfile) {
    const known = Object.keys(config.profiles);
    throw new UsageError(
      `${profile.origin} names the profile ${JSON.stringify(profile.value)}, which does not exist`,
      known.length > 0
        ? `profiles: ${known.join(", ")}; \`petstore auth login --profile ${profile.value}\` creates it`
        : `\`petstore auth login --profile ${profile.value}\` creates it`,
    );
  }
  const inProfile = `profile ${JSON.stringify(profile.value)}`;

  const envName = pick([
    { source: "flag", value: flags.env, origin: "--env" },
    { source: "environment", value: env.PETSTORE_ENV, origin: "PETSTORE_ENV" },
    { source: "profile", value: stored?.env, origin: inProfile },
  ]) ?? { source: "default", value: "production", origin: "the default" };
  if (!isEnvironmentName(envName.value)) {
    throw new UsageError(
      `${envName.origin} must be one of ${ENVIRONMENT_NAMES.join(", ")}; got ${JSON.stringify(envName.value)}`,
    );
  }
  const environment = envName.value;

  const baseUrlText = pick([
    { source: "flag", value: flags.baseUrl, origin: "--base-url" },
    { source: "environment", value: env.PETSTORE_BASE_URL, origin: "PETSTORE_BASE_URL" },
    {
      source: "profile",
      value: stored?.baseUrls?.[environment],
      origin: `the ${environment} base URL of ${inProfile}`,
    },
  ]) ?? {
    source: "default",
    value: DEFAULT_BASE_URLS[environment],
    origin: `the default ${environment} base URL`,
  };
  const baseUrl = parseBaseUrl(baseUrlText.value);
  if (!baseUrl.ok) throw new UsageError(`${baseUrlText.origin} ${baseUrl.problem}`);

  const key = pick([
    { source: "flag", value: flags.apiKey, origin: "--api-key-file" },
    { source: "environment", value: env.PETSTORE_API_KEY, origin: "PETSTORE_API_KEY" },
    { source: "profile", value: stored?.apiKey, origin: inProfile },
  ]);
  const apiKey = checkedKey(key);
  const keyring = key === undefined ? stored?.keyring : undefined;

  const settings: ResolvedSettings = {
    profile: profile.value,
    env: environment,
    baseUrl: baseUrl.url,
    allowInsecure: flags.allowInsecure === true || envSwitch(env, "PETSTORE_ALLOW_INSECURE"),
    sources: {
      profile: profile.source,
      env: envName.source,
      baseUrl: baseUrlText.source,
      apiKey: key?.source ?? (keyring === undefined ? "none" : "profile"),
    },
  };
  if (apiKey !== undefined) settings.apiKey = apiKey;
  if (keyring !== undefined) settings.keyring = keyring;
  return settings;
}
