/**
 * How a key is shown anywhere (auth status, --verbose, the fake's /__admin/keys): its type prefix (`psk_`)
 * and last 4 characters, so a person can tell keys apart, but only as much of
 * that as still leaves at least 12 characters unshown.
 */
const MIN_HIDDEN_CHARACTERS = 12;

export function redactKey(key: string): string {
  const prefix = /^[A-Za-z]{1,8}_/.exec(key)?.[0] ?? "";
  const tail = key.slice(-4);
  if (key.length - prefix.length - tail.length >= MIN_HIDDEN_CHARACTERS) {
    return `${prefix}…${tail}`;
  }
  if (key.length - tail.length >= MIN_HIDDEN_CHARACTERS) return `…${tail}`;
  return "…";
}
