/**
 * Where the config file lives: PETSTORE_CONFIG_DIR, else $XDG_CONFIG_HOME/petstore,
 * else ~/.config/petstore (%APPDATA%\petstore on Windows). "~" is $HOME when it is
 * an absolute path, else the home directory of the account (the passwd entry); with
 * neither, there is no config directory: never the working directory.
 */
import { isAbsolute, join, resolve } from "node:path";
import { UsageError } from "../errors.js";

export const CONFIG_FILE_NAME = "config.json";

function homeDirectory(env: NodeJS.ProcessEnv): string {
  if (env.HOME && isAbsolute(env.HOME)) return env.HOME;
  let home: string | undefined;
  try {
    // node:os only here, where it is needed: most runs have HOME.
    home = process.getBuiltinModule("node:os").userInfo().homedir;
  } catch {
    // No passwd entry for this uid (a container run with --user 12345, say).
  }
  if (home && isAbsolute(home)) return home;
  throw new UsageError(
    `HOME is ${env.HOME ? "not an absolute path" : "not set"} and this account has no home directory, so there is no place for the config file`,
    "set PETSTORE_CONFIG_DIR (or HOME) to the directory that should hold it",
  );
}

export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.PETSTORE_CONFIG_DIR) return resolve(env.PETSTORE_CONFIG_DIR);
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  if (env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)) {
    return join(env.XDG_CONFIG_HOME, "petstore");
  }
  if (process.platform === "win32" && env.APPDATA) return join(env.APPDATA, "petstore");
  return join(homeDirectory(env), ".config", "petstore");
}

export function configPath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), CONFIG_FILE_NAME);
}
