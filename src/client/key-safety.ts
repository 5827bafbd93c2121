/**
 * Where the API key may go. Over plain http:// anyone on the path can read a
 * bearer token, so it travels there only to this machine (loopback: `petstore
 * serve`) unless the user explicitly accepts the risk.
 */
import { UsageError } from "../errors.js";
import { redactKey } from "../profiles/redact-key.js";

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

/** Text from outside (a service message, a header) with any copy of the key redacted. */
export function withoutKey(text: string, apiKey: string | undefined): string {
  return apiKey ? text.split(apiKey).join(redactKey(apiKey)) : text;
}
