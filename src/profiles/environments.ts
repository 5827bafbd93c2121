/**
 * The service's deployments. The spec names their addresses only as placeholders
 * (`{base_url}`, `{staging_base_url}`), so these defaults are configuration: a
 * profile, `--base-url` or `PETSTORE_BASE_URL` replaces them.
 */

export const ENVIRONMENT_NAMES = ["production", "staging"] as const;
export type EnvironmentName = (typeof ENVIRONMENT_NAMES)[number];

export const DEFAULT_BASE_URLS: Record<EnvironmentName, string> = {
  production: "https://api.petstore.example/v1",
  staging: "https://staging.api.petstore.example/v1",
};

export function isEnvironmentName(value: string): value is EnvironmentName {
  return (ENVIRONMENT_NAMES as readonly string[]).includes(value);
}

export type ParsedBaseUrl = { ok: true; url: string } | { ok: false; problem: string };

/**
 * A base address as the client uses it: http(s), no credentials (they would be a
 * second secret in plain sight), no query or fragment (paths are appended), no
 * trailing slash. The problem text never repeats a URL that carries credentials.
 */
export function parseBaseUrl(text: string): ParsedBaseUrl {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return {
      ok: false,
      problem: `must be an absolute http:// or https:// URL; got ${JSON.stringify(text)}`,
    };
  }
  if (url.username !== "" || url.password !== "") {
    return { ok: false, problem: "must not contain a user name or password" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, problem: `must use http:// or https://; got ${JSON.stringify(text)}` };
  }
  if (url.search !== "" || url.hash !== "") {
    return { ok: false, problem: `must not have a query or fragment; got ${JSON.stringify(text)}` };
  }
  return { ok: true, url: url.href.replace(/\/+$/, "") };
}
