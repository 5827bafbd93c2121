/**
 * Where the API key may go. Over plain http:// anyone on the path can read a
 * bearer token, so it travels there only to this machine (loopback: `petstore
 * serve`) unless the user explicitly accepts the risk.
 */
import { UsageError } from "../errors.js";
import { redactKey } from "../schema/redact-key.js";

/** `localhost`, 127.0.0.0/8 and ::1 (as URL.hostname spells them). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === "localhost" || host === "[::1]") return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export function assertKeyMayTravelTo(url: URL, allowInsecure: boolean): void {
  if (url.protocol !== "http:" || allowInsecure || isLoopbackHost(url.hostname)) return;
  throw new UsageError(
    `refusing to send the API key over plain http:// to ${url.host}: anyone on the network could read it`,
    "use an https:// base URL; or, accepting the risk, pass --allow-insecure (or set PETSTORE_ALLOW_INSECURE=1)",
  );
}

/** Keys this long are redacted wherever they appear: no word contains one by chance. */
const REDACT_EVERYWHERE_LENGTH = 8;
/**
 * A character that continues a word: a short key next to one is part of another
 * word. Made on first use: a Unicode property class is not free to build, and
 * most runs never redact a short key.
 */
let wordCharacter: RegExp | undefined;
function isWordCharacter(text: string): boolean {
  wordCharacter ??= /[\p{L}\p{N}_-]/u;
  return wordCharacter.test(text);
}

/**
 * Text from outside (a service message, a header) with any copy of the key
 * redacted. A key shorter than 8 characters (possible from PETSTORE_API_KEY; auth
 * login refuses one) is redacted only where it stands as a whole word, so a key
 * `k` does not turn "unknown" into "un…nown".
 */
export function withoutKey(text: string, apiKey: string | undefined): string {
  if (!apiKey) return text;
  const shown = redactKey(apiKey);
  if (apiKey.length >= REDACT_EVERYWHERE_LENGTH) return text.split(apiKey).join(shown);
  let result = "";
  let copied = 0;
  for (let at = text.indexOf(apiKey); at !== -1; at = text.indexOf(apiKey, at + 1)) {
    if (at < copied) continue;
    const end = at + apiKey.length;
    const before = at > 0 ? text.slice(at - 1, at) : "";
    const after = text.slice(end, end + 1);
    if (isWordCharacter(before) || isWordCharacter(after)) continue;
    result += text.slice(copied, at) + shown;
    copied = end;
  }
  return result + text.slice(copied);
}
