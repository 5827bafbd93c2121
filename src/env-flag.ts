/**
 * The one reading of an on/off environment variable (PETSTORE_DEBUG,
 * PETSTORE_ALLOW_INSECURE, PETSTORE_NO_DEPRECATION_WARNING, CI): 1, true, yes
 * and on are on; unset, empty, 0, false, no and off are off (any case, spaces
 * around ignored). Anything else is `undefined`, and the caller says what that
 * means: an error, or the safe side.
 */
const ON = new Set(["1", "true", "yes", "on"]);
const OFF = new Set(["", "0", "false", "no", "off"]);

export function envFlag(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const value = (env[name] ?? "").trim().toLowerCase();
  if (ON.has(value)) return true;
  if (OFF.has(value)) return false;
  return undefined;
}
