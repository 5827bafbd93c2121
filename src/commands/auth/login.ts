/**
 * `petstore auth login`: stores an API key in a profile. The key comes from stdin
 * (`--with-token`), a file, or a prompt that does not echo; never from a flag
 * value, which any user of the machine could read in the process list.
 */
import { readFile } from "node:fs/promises";
import {
  isEnvironmentName,
  parseBaseUrl,
  ENVIRONMENT_NAMES,
  type EnvironmentName,
} from "../../profiles/environments.js";
import { UsageError } from "../../errors.js";
import type { Factory } from "../factory.js";
import type { ProfileConfig } from "../../profiles/config-file.js";
import { storedProfile } from "../profile/stored.js";
import type { OptionValues } from "../fast-parse.js";
import { booleanOption, stringOption } from "../option-values.js";
import type { CommandRunner } from "../runner.js";

export type KeySource = { kind: "stdin" } | { kind: "file"; path: string } | { kind: "prompt" };

export interface LoginOptions {
  profile?: string;
  env?: EnvironmentName;
  baseUrl?: string;
  keySource: KeySource;
}

const KEY_HINT =
  "pipe the key in with --with-token, or use --api-key-file; a flag value would show it in the process list";

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

async function readKey(source: KeySource, factory: Factory): Promise<string> {
  const { stdin } = factory.io;
  let text: string;
  switch (source.kind) {
    case "stdin":
      text = await stdin.readAll();
      break;
    case "file":
      try {
        text = await readFile(source.path, "utf8");
      } catch (error) {
        const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        throw new UsageError(`--api-key-file ${source.path} cannot be read (${reason})`);
      }
      break;
    case "prompt":
      try {
        text = await stdin.readHiddenLine("API key (input hidden): ");
      } catch {
        throw new UsageError("no API key entered");
      }
      break;
  }
  const key = text.trim();
  // Same rule as the profile resolver: one word of visible ASCII.
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new UsageError(
      key === ""
        ? "the API key is empty"
        : "the API key contains spaces or control characters; a key is one word",
      KEY_HINT,
    );
  }
  return key;
}

export async function loginRun(options: LoginOptions, factory: Factory): Promise<void> {
  const flags = options.profile === undefined ? {} : { profile: options.profile };
  const { profile } = factory.settings(flags, { allowNewProfile: true });
  const apiKey = await readKey(options.keySource, factory);
  const config = await factory.updateConfig((config) => {
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
  });
  const env = storedProfile(config, profile)?.env ?? "production";
  factory.io.stderr.write(
    `Stored the API key in profile ${profile} (${env}). \`petstore auth status\` checks it.\n`,
  );
}

export const run: CommandRunner = (parsed, factory) =>
  loginRun(loginOptionsFrom(parsed.options, factory.io.stdin.isTTY), factory);
