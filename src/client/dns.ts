/**
 * A host name that does not resolve. ENOTFOUND is the resolver's final answer
 * (NXDOMAIN: the name does not exist), so it is not transient: the request fails
 * at once, without retries. EAI_AGAIN means the resolver could not answer now (a
 * network that is down, a DNS server that timed out) and is transient, retried
 * like a refused connection; except for names reserved never to resolve (RFC
 * 2606 and 6761: `.example`, `.invalid`), such as the placeholders that are the
 * built-in base URLs, where no later answer can differ.
 */
import { HostNotFoundError, type RequestSummary } from "../errors.js";

const RESERVED_NEVER_RESOLVING = /(^|\.)(example|invalid)\.?$/i;

export function isReservedHostName(hostname: string): boolean {
  return RESERVED_NEVER_RESOLVING.test(hostname);
}

/** The HostNotFoundError for a lasting DNS failure, or undefined (another kind of failure). */
export function lastingDnsFailure(
  code: string,
  summary: RequestSummary,
  url: URL,
): HostNotFoundError | undefined {
  const lasting =
    code === "ENOTFOUND" || (code === "EAI_AGAIN" && isReservedHostName(url.hostname));
  if (!lasting) return undefined;
  return new HostNotFoundError(
    `could not connect to ${url.host}: the host ${url.hostname} was not found (DNS ${code})`,
    summary,
    false,
    "check the host name in the base URL (--base-url, PETSTORE_BASE_URL or the profile)",
  );
}
