/**
 * The stored profiles: one JSON file, `<configDir>/config.json`, written by conf.
 *
 * Reading is plain `fs` + `JSON.parse`: every command reads the file, and
 * loading conf (with its JSON-schema validator) would cost more start-up time
 * than the request itself. Only writing imports conf, lazily. The file holds API
 * keys, so it is created with mode 0600 (and put back to 0600 on every write)
 * in a directory created with mode 0700.
 */
import { chmodSync, mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import * as z from "zod/mini";
import { UsageError } from "../errors.js";
import { ENVIRONMENT_NAMES, type EnvironmentName } from "./environments.js";

export interface ProfileConfig {
  apiKey?: string;
  env?: EnvironmentName;
  baseUrls?: Partial<Record<EnvironmentName, string>>;
}

export interface StoredConfig {
  currentProfile?: string;
  profiles: Record<string, ProfileConfig>;
}

export const CONFIG_FILE_NAME = "config.json";
export const CONFIG_FILE_MODE = 0o600;
const CONFIG_DIR_MODE = 0o700;

/** Profile names are plain words, so they are safe as object keys and in shell completions. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const StoredConfigSchema = z.object({
  currentProfile: z.optional(z.string().check(z.regex(PROFILE_NAME))),
  profiles: z._default(
    z.record(
      z.string().check(z.regex(PROFILE_NAME)),
      z.object({
        apiKey: z.optional(z.string()),
        env: z.optional(z.enum(ENVIRONMENT_NAMES)),
        baseUrls: z.optional(
          z.object({ production: z.optional(z.string()), staging: z.optional(z.string()) }),
        ),
      }),
    ),
    {},
  ),
});

/** PETSTORE_CONFIG_DIR, else $XDG_CONFIG_HOME/petstore, else ~/.config/petstore (%APPDATA% on Windows). */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.PETSTORE_CONFIG_DIR) return resolve(env.PETSTORE_CONFIG_DIR);
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  if (env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)) {
    return join(env.XDG_CONFIG_HOME, "petstore");
  }
  if (process.platform === "win32" && env.APPDATA) return join(env.APPDATA, "petstore");
  return join(env.HOME || homedir(), ".config", "petstore");
}

export function configPath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), CONFIG_FILE_NAME);
}

export function readConfig(env: NodeJS.ProcessEnv): StoredConfig {
  const path = configPath(env);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { profiles: {} };
    throw new UsageError(
      `cannot read the config file ${path}: ${(error as Error).message}`,
      "PETSTORE_CONFIG_DIR chooses another directory",
    );
  }
  const hint = "fix or delete it; `petstore auth login` writes a new one";
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `the config file ${path} is not valid JSON: ${(error as Error).message}`,
      hint,
    );
  }
  const parsed = StoredConfigSchema.safeParse(json);
  if (!parsed.success) {
    const where = [...new Set(parsed.error.issues.map((issue) => issue.path.join(".") || "(top)"))];
    throw new UsageError(
      `the config file ${path} has invalid values at ${where.join(", ")}`,
      `${hint}; profile names are letters, digits, '.', '_' and '-', env is ${ENVIRONMENT_NAMES.join(" or ")}`,
    );
  }
  return parsed.data;
}

/**
 * Reads the file, lets `change` edit the config (in place, or by returning a new
 * one) and writes it through conf. Concurrent writers: the last one wins.
 */
export async function updateConfig(
  env: NodeJS.ProcessEnv,
  change: (config: StoredConfig) => StoredConfig | void,
): Promise<StoredConfig> {
  const current = readConfig(env);
  const next = change(current) ?? current;
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: CONFIG_DIR_MODE });
  const { default: Conf } = await import("conf");
  const store = new Conf<Record<string, unknown>>({
    cwd: dir,
    configName: CONFIG_FILE_NAME.replace(/\.json$/, ""),
    configFileMode: CONFIG_FILE_MODE,
    accessPropertiesByDotNotation: false,
  });
  store.store = { ...next };
  // A file that existed before with a looser mode keeps it through some write paths.
  chmodSync(store.path, CONFIG_FILE_MODE);
  return next;
}
