/**
 * The stored profiles: one JSON file, `<configDir>/config.json`.
 *
 * Reading is here (every command reads the file, so it stays small); writing is
 * in config-write.ts, loaded only by the commands that write. A file that is not
 * safe to trust (see config-safety.ts) or not a config is reported as a
 * ConfigFileError, whose message never quotes the file: it may hold a key.
 */
import { lstatSync, readlinkSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { ENVIRONMENT_NAMES } from "./environments.js";
import { readNoFollow } from "../files/file-safety.js";
import { JsonSyntaxError, parseJson } from "../schema/json.js";
import { CONFIG_FILE_NAME, configDir } from "./config-dir.js";
import {
  accessProblem,
  ConfigFileError,
  directoryProblem,
  exposureWarning,
  fileProblem,
  nearestExisting,
  notADirectory,
} from "./config-safety.js";

export { configDir, configPath } from "./config-dir.js";

/** The config as its schema reads it. */
export type StoredConfig = z.output<ReturnType<typeof makeStoredConfigSchema>>;
export type ProfileConfig = StoredConfig["profiles"][string];

/** The profile of that name; never mistakes `constructor` or `toString` for one. */
export function storedProfile(config: StoredConfig, name: string): ProfileConfig | undefined {
  return Object.hasOwn(config.profiles, name) ? config.profiles[name] : undefined;
}

/** What was read: the config (empty when the file is missing or cannot be used) and why it could not be used. */
export interface LoadedConfig {
  path: string;
  config: StoredConfig;
  problem?: ConfigFileError;
  /** Why the keys in a usable file are not private (exposureWarning). */
  exposed?: string;
}

/** A config is a few hundred bytes; anything this large is some other file. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** Profile names are plain words, so they are safe as object keys and in shell completions. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Built on first use: runs configured by flags and environment alone never need it. */
let storedConfigSchema: ReturnType<typeof makeStoredConfigSchema> | undefined;

const makeStoredConfigSchema = () =>
  z.object({
    currentProfile: z.optional(z.string().check(z.regex(PROFILE_NAME))),
    profiles: z._default(
      z.record(
        z.string().check(z.regex(PROFILE_NAME)),
        z.object({
          /** The key itself, in this file. */
          apiKey: z.optional(z.string()),
          /** The account of the key in the system keyring (key-store.ts). */
          keyring: z.optional(z.string().check(z.minLength(1))),
          env: z.optional(z.enum(ENVIRONMENT_NAMES)),
          baseUrls: z.optional(
            z.object({ production: z.optional(z.string()), staging: z.optional(z.string()) }),
          ),
        }),
      ),
      {},
    ),
  });

const BROKEN_CONFIG_HINT =
  "fix it, or replace it with `petstore auth login` (which keeps the old file as config.json.bak)";

/** Where the text stops being JSON, by line and column only: the text itself may be a key. */
function syntaxProblem(path: string, text: string): ConfigFileError {
  let where = "";
  try {
    parseJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) {
      where =
        error.position >= text.length
          ? ` (it ends too early, at line ${error.line})`
          : ` (line ${error.line}, column ${error.column})`;
    }
  }
  return new ConfigFileError(
    `the config file ${path} is not valid JSON${where}`,
    BROKEN_CONFIG_HINT,
    "broken",
  );
}

/** The text of a config file; an empty file (or only white space) is an empty config. */
function parseConfigText(path: string, raw: string): StoredConfig {
  const text = raw.replace(/^\uFEFF/, "");
  if (text.trim() === "") return { profiles: {} };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw syntaxProblem(path, text);
  }
  storedConfigSchema ??= makeStoredConfigSchema();
  const parsed = storedConfigSchema.safeParse(json);
  if (!parsed.success) {
    const where = [...new Set(parsed.error.issues.map((issue) => issue.path.join(".") || "(top)"))];
    throw new ConfigFileError(
      `the config file ${path} has invalid values at ${where.join(", ")}`,
      `${BROKEN_CONFIG_HINT}; profile names are letters, digits, '.', '_' and '-', env is ${ENVIRONMENT_NAMES.join(" or ")}`,
      "broken",
    );
  }
  return parsed.data;
}

/**
 * Reads the file in `dir`, checking the directory and the file (as lstat sees it,
 * so that a FIFO or a device is never opened) first; throws a ConfigFileError, or
 * the system's error.
 */
function readConfigFile(dir: string, path: string): { config: StoredConfig; stats?: Stats } {
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { config: { profiles: {} } };
    if (code === "ENOTDIR") throw notADirectory(nearestExisting(dir).path);
    throw error;
  }
  const problem =
    directoryProblem(dir, statSync(dir)) ??
    fileProblem(path, stats, stats.isSymbolicLink() ? readlinkSync(path) : undefined);
  if (problem) throw problem;
  const text = readNoFollow(path, (opened) => {
    stats = opened;
    const problem = fileProblem(path, opened);
    if (problem) throw problem;
    if (opened.size > MAX_CONFIG_BYTES) {
      throw new ConfigFileError(
        `the config file ${path} is larger than 1 MiB: it is not a petstore config file`,
        BROKEN_CONFIG_HINT,
        "broken",
      );
    }
  });
  return { config: parseConfigText(path, text), stats };
}

function loadConfigIn(dir: string): LoadedConfig {
  const path = join(dir, CONFIG_FILE_NAME);
  try {
    const { config, stats } = readConfigFile(dir, path);
    const keys = Object.values(config.profiles).some((profile) => profile.apiKey !== undefined);
    const exposed = exposureWarning(path, stats, keys);
    return exposed === undefined ? { path, config } : { path, config, exposed };
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw accessProblem(path, error);
    return { path, config: { profiles: {} }, problem: error };
  }
}

/** The stored config, and any reason it could not be used (the config is then empty). */
export function loadConfig(env: NodeJS.ProcessEnv): LoadedConfig {
  let dir: string;
  try {
    dir = configDir(env);
  } catch {
    // No HOME and no home directory: there is no config to read (a write says why).
    return { path: "", config: { profiles: {} } };
  }
  return loadConfigIn(dir);
}

/** The stored config; throws the ConfigFileError when it cannot be used. */
export function readConfig(env: NodeJS.ProcessEnv): StoredConfig {
  const { config, problem } = loadConfig(env);
  if (problem) throw problem;
  return config;
}

export interface ConfigUpdate {
  path: string;
  config: StoredConfig;
  /** Where the broken file that was replaced now is. */
  backup?: string;
  /** Why the file was replaced. */
  replaced?: ConfigFileError;
  /** What could not be checked about who may read it (Windows, outside the profile directory). */
  unchecked?: string;
}

export interface UpdateOptions {
  /** Replace a file that is not a config (keeping it as config.json.bak) instead of refusing. */
  replaceBroken?: boolean;
}

/**
 * Reads the file, lets `change` edit the config (in place, or by returning a new
 * one) and writes it, holding the config's lock throughout (see config-write.ts).
 */
export async function updateConfig(
  env: NodeJS.ProcessEnv,
  change: (config: StoredConfig) => StoredConfig | void,
  options: UpdateOptions = {},
): Promise<ConfigUpdate> {
  const { writeConfig } = await import("./config-write.js");
  return writeConfig(configDir(env), change, options, loadConfigIn, env);
}

/**
 * Checks, creating nothing, that the config directory could hold the file, so
 * that `auth login` says so before it asks for a key.
 */
export async function checkConfigDir(env: NodeJS.ProcessEnv): Promise<void> {
  const { checkConfigDir } = await import("./config-write.js");
  checkConfigDir(configDir(env));
}
