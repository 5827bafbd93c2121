/**
 * A first run that explains itself: the built-in base URLs are placeholders
 * (`https://api.petstore.example/v1`), so a run that has none configured fails
 * on a host that does not exist. That failure (a HostNotFoundError, exit 6, not
 * retried) is reworded to say that no service URL is configured and how to set
 * one; for a configured URL that does not resolve, the hint names where it
 * came from.
 */
import { EXIT, HostNotFoundError, PetstoreError } from "../errors.js";
import type { ResolvedSettings } from "../profiles/resolve.js";
import { describeSource } from "./settings-summary.js";

const SET_BASE_URL =
  "set one with --base-url <url> (this run), PETSTORE_BASE_URL=<url> (this shell), or `petstore auth login --base-url <url>` (stored in the profile)";

/** `error`, reworded when it is a base URL whose host does not exist. */
export function explainBaseUrlFailure(error: unknown, settings: ResolvedSettings): unknown {
  if (!(error instanceof HostNotFoundError)) return error;
  const { baseUrl, env } = settings;
  const host = new URL(baseUrl).hostname;
  if (settings.sources.baseUrl === "default") {
    return new PetstoreError(
      `no service URL is configured: ${baseUrl} is the built-in ${env} placeholder, and its host ${host} does not exist`,
      EXIT.NETWORK,
      SET_BASE_URL,
    );
  }
  const source = describeSource("baseUrl", settings.sources.baseUrl, settings.profile);
  return new PetstoreError(
    error.message,
    EXIT.NETWORK,
    `the base URL ${baseUrl} is ${source}: check its host name, ${host}`,
  );
}
