import { describe, expect, it } from "vitest";
import type { StoredConfig } from "../../src/profiles/config-file.js";
import {
  type ResolvedSettings,
  resolveSettings,
  type SettingsFlags,
} from "../../src/profiles/resolve.js";
import { UsageError } from "../../src/errors.js";

const PROD = "https://api.petstore.example/v1";
const STAGING = "https://staging.api.petstore.example/v1";

const config: StoredConfig = {
  currentProfile: "work",
  profiles: {
    work: {
      apiKey: "psk_work_0000000000000000",
      env: "staging",
      baseUrls: { staging: "https://work-staging.example.test/v1" },
    },
    home: { apiKey: "psk_home_1111111111111111" },
    keyless: {},
  },
};

type Expected = Omit<ResolvedSettings, "allowInsecure">;

describe("resolveSettings: flags > environment > profile > defaults, field by field", () => {
  it.each<[string, SettingsFlags, NodeJS.ProcessEnv, StoredConfig, Expected]>([
    [
      "nothing stored, nothing given: defaults, no key",
      {},
      {},
      { profiles: {} },
      {
        profile: "default",
        env: "production",
        baseUrl: PROD,
        sources: { profile: "default", env: "default", baseUrl: "default", apiKey: "none" },
      },
    ],
    [
      "--env staging alone: the default staging address",
      { env: "staging" },
      {},
      { profiles: {} },
      {
        profile: "default",
        env: "staging",
        baseUrl: STAGING,
        sources: { profile: "default", env: "flag", baseUrl: "default", apiKey: "none" },
      },
    ],
    [
      "the current profile supplies key, env and its base URL for that env",
      {},
      {},
      config,
      {
        profile: "work",
        env: "staging",
        baseUrl: "https://work-staging.example.test/v1",
        apiKey: "psk_work_0000000000000000",
        sources: { profile: "profile", env: "profile", baseUrl: "profile", apiKey: "profile" },
      },
    ],
    [
      "a profile without a base URL for its env gets the default one",
      { profile: "home" },
      {},
      config,
      {
        profile: "home",
        env: "production",
        baseUrl: PROD,
        apiKey: "psk_home_1111111111111111",
        sources: { profile: "flag", env: "default", baseUrl: "default", apiKey: "profile" },
      },
    ],
    [
      "--env production on the work profile: no stored production URL, so the default",
      { env: "production" },
      {},
      config,
      {
        profile: "work",
        env: "production",
        baseUrl: PROD,
        apiKey: "psk_work_0000000000000000",
        sources: { profile: "profile", env: "flag", baseUrl: "default", apiKey: "profile" },
      },
    ],
    [
      "environment variables beat the profile",
      {},
      {
        PETSTORE_PROFILE: "home",
        PETSTORE_ENV: "staging",
        PETSTORE_BASE_URL: "http://127.0.0.1:4010/v1",
        PETSTORE_API_KEY: "psk_env_22222222222222222",
      },
      config,
      {
        profile: "home",
        env: "staging",
        baseUrl: "http://127.0.0.1:4010/v1",
        apiKey: "psk_env_22222222222222222",
        sources: {
          profile: "environment",
          env: "environment",
          baseUrl: "environment",
          apiKey: "environment",
        },
      },
    ],
    [
      "flags beat environment variables",
      {
        profile: "work",
        env: "production",
        baseUrl: "http://localhost:5000/v1/",
        apiKey: "psk_file_3333333333333333",
      },
      {
        PETSTORE_PROFILE: "home",
        PETSTORE_ENV: "staging",
        PETSTORE_BASE_URL: "http://127.0.0.1:4010/v1",
        PETSTORE_API_KEY: "psk_env_22222222222222222",
      },
      config,
      {
        profile: "work",
        env: "production",
        baseUrl: "http://localhost:5000/v1",
        apiKey: "psk_file_3333333333333333",
        sources: { profile: "flag", env: "flag", baseUrl: "flag", apiKey: "flag" },
      },
    ],
    [
      "empty variables count as unset",
      {},
      { PETSTORE_PROFILE: "", PETSTORE_ENV: "", PETSTORE_BASE_URL: "", PETSTORE_API_KEY: "" },
      config,
      {
        profile: "work",
        env: "staging",
        baseUrl: "https://work-staging.example.test/v1",
        apiKey: "psk_work_0000000000000000",
        sources: { profile: "profile", env: "profile", baseUrl: "profile", apiKey: "profile" },
      },
    ],
    [
      "PETSTORE_API_KEY with a profile that has no key",
      { profile: "keyless" },
      { PETSTORE_API_KEY: "  psk_env_22222222222222222\n" },
      config,
      {
        profile: "keyless",
        env: "production",
        baseUrl: PROD,
        apiKey: "psk_env_22222222222222222",
        sources: { profile: "flag", env: "default", baseUrl: "default", apiKey: "environment" },
      },
    ],
  ])("%s", (_name, flags, env, stored, expected) => {
    const { allowInsecure: _, ...settings } = resolveSettings(flags, env, stored);
    expect(settings).toEqual(expected);
  });
});

describe("resolveSettings: allowInsecure", () => {
  it.each<[SettingsFlags, string | undefined, boolean]>([
    [{}, undefined, false],
    [{ allowInsecure: true }, undefined, true],
    [{}, "1", true],
    [{}, "true", true],
    [{}, "0", false],
    [{}, "", false],
  ])("flags %j, PETSTORE_ALLOW_INSECURE=%s -> %s", (flags, variable, expected) => {
    const env = variable === undefined ? {} : { PETSTORE_ALLOW_INSECURE: variable };
    expect(resolveSettings(flags, env, config).allowInsecure).toBe(expected);
  });
});

describe("resolveSettings: errors name what to fix", () => {
  const failure = (run: () => unknown): UsageError => {
    try {
      run();
    } catch (error) {
      if (error instanceof UsageError) return error;
      throw error;
    }
    throw new Error("expected a UsageError");
  };

  it.each<[string, SettingsFlags, NodeJS.ProcessEnv, string]>([
    [
      "an unknown --env",
      { env: "prod" },
      {},
      '--env must be one of production, staging; got "prod"',
    ],
    [
      "an unknown PETSTORE_ENV",
      {},
      { PETSTORE_ENV: "dev" },
      'PETSTORE_ENV must be one of production, staging; got "dev"',
    ],
    [
      "a malformed --base-url",
      { baseUrl: "localhost:4010" },
      {},
      '--base-url must use http:// or https://; got "localhost:4010"',
    ],
    [
      "a malformed PETSTORE_BASE_URL",
      {},
      { PETSTORE_BASE_URL: "not a url" },
      'PETSTORE_BASE_URL must be an absolute http:// or https:// URL; got "not a url"',
    ],
    [
      "a --profile that does not exist",
      { profile: "wrok" },
      {},
      '--profile names the profile "wrok", which does not exist',
    ],
    [
      "a PETSTORE_PROFILE that does not exist",
      {},
      { PETSTORE_PROFILE: "nope" },
      'PETSTORE_PROFILE names the profile "nope", which does not exist',
    ],
    [
      "a profile name that is not a name",
      { profile: "__proto__" },
      {},
      `--profile must be a profile name (letters, digits, '.', '_', '-'); got "__proto__"`,
    ],
    [
      "a key with a space in it",
      {},
      { PETSTORE_API_KEY: "psk_abc def_0000000000000" },
      "the API key from PETSTORE_API_KEY contains spaces or control characters (or is blank)",
    ],
    [
      "a bad PETSTORE_ALLOW_INSECURE",
      {},
      { PETSTORE_ALLOW_INSECURE: "maybe" },
      'PETSTORE_ALLOW_INSECURE must be 1 or 0; got "maybe"',
    ],
  ])("%s", (_name, flags, env, message) => {
    expect(failure(() => resolveSettings(flags, env, config)).message).toBe(message);
  });

  it("lists the profiles there are when one is missing", () => {
    const error = failure(() => resolveSettings({ profile: "wrok" }, {}, config));
    expect(error.hint).toBe(
      "profiles: work, home, keyless; `petstore auth login --profile wrok` creates it",
    );
  });

  it("accepts a new profile name when asked to (auth login)", () => {
    const settings = resolveSettings({ profile: "fresh" }, {}, config, { allowNewProfile: true });
    expect(settings.profile).toBe("fresh");
    expect(settings.sources.apiKey).toBe("none");
  });

  it("names the profile whose stored base URL is malformed", () => {
    const broken: StoredConfig = { profiles: { lab: { baseUrls: { production: "nope" } } } };
    expect(failure(() => resolveSettings({ profile: "lab" }, {}, broken)).message).toBe(
      'the production base URL of profile "lab" must be an absolute http:// or https:// URL; got "nope"',
    );
  });

  it("never repeats the key in the error about it", () => {
    const key = "psk_secret\u0007value_0000000000";
    const error = failure(() => resolveSettings({}, { PETSTORE_API_KEY: key }, config));
    expect(error.message).not.toContain("secret");
  });
});
