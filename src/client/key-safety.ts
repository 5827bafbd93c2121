/**
 * Where the API key may go. Over plain http:// anyone on the path can read a
 * bearer token, so it travels there only to this machine (loopback: `petstore
 * serve`) unless the user explicitly accepts the risk.
 */
import { EXIT, PetstoreError, UsageError } from "../errors.js";
import { redactKey } from "../schema/redact-key.js";

/** `localhost`, 127.0.0.0/8 and ::1 (as URL.hostname spells them). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === "localhost" || host === "[::1]") return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Why no request may be sent with these settings, or undefined: the same for
 * every path (a bulk add asks before it reads its input).
 */
export function sendRefusal(options: {
  baseUrl: string;
  apiKey?: string;
  allowInsecure: boolean;
}): PetstoreError | undefined {
  if (!options.apiKey) {
    const hint = "run `petstore auth login`, or set PETSTORE_API_KEY";
    return new PetstoreError("no API key", EXIT.AUTH, hint);
  }
  const url = new URL(options.baseUrl);
  if (url.protocol !== "http:" || options.allowInsecure || isLoopbackHost(url.hostname)) {
    return undefined;
  }
  return new UsageError(
    `refusing to send the API key over plain http:// to ${url.host}: anyone on the network could read it`,
    "use an https:// base URL; or, accepting the risk, pass --allow-insecure (or set PETSTORE_ALLOW_INSECURE=1)",
  );
}

/** Keys this long are redacted wherever they appear: no word contains one by chance. */
const REDACT_EVERYWHERE_LENGTH = 8;

/**
 * Text from outside (a service message, a header) with any copy of the key
 * redacted. A key shorter than 8 characters (possible from PETSTORE_API_KEY; auth
 * login refuses one) is redacted only where it stands as a whole word, so a key
 * `k` does not turn "unknown" into "un…nown". (The Unicode classes are compiled
 * only then: most runs never redact a short key.)
 */
export function withoutKey(text: string, apiKey: string | undefined): string {
  if (!apiKey) return text;
  const shown = redactKey(apiKey);
  if (apiKey.length >= REDACT_EVERYWHERE_LENGTH) return text.split(apiKey).join(shown);
  const key = apiKey.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const word = "[\\p{L}\\p{N}_-]";
  return text.replace(new RegExp(`(?<!${word})${key}(?!${word})`, "gu"), () => shown);
}
