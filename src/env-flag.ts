/**
 * The one reading of an on/off environment variable (PETSTORE_DEBUG,
 * PETSTORE_ALLOW_INSECURE, PETSTORE_NO_DEPRECATION_WARNING, CI): 1, true, yes
 * and on are on; unset, empty, 0, false, no and off are off (any case, spaces
 * around ignored). Anything else is `undefined`, and the caller says what that
 * means: an error (`envSwitch`), or the safe side.
 */
import { UsageError } from "./errors.js";

const ON = new Set(["1", "true", "yes", "on"]);
const OFF = new Set(["", "0", "false", "no", "off"]);

export function envFlag(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const value = (env[name] ?? "").trim().toLowerCase();
  if (ON.has(value)) return true;
  if (OFF.has(value)) return false;
  return undefined;
}

/** A switch that must be on or off: anything else is a usage error naming it. */
export function envSwitch(env: NodeJS.ProcessEnv, name: string): boolean {
  const value = envFlag(env, name);
  if (value !== undefined) return value;
  throw new UsageError(`${name} must be 1 or 0; got ${JSON.stringify(env[name])}`);
}
