/**
 * What a run would use, and where each value comes from (flag, environment
 * variable, profile or default): shared by `auth status` and `profile show`, so
 * a person can see the precedence at work. The key is only ever shown redacted, with
 * where a profile keeps it: the system keyring or the config file. And the rate
 * limit as `auth status` and `auth login` show it.
 */
import { clockTime, formatWait, windowOf } from "../client/wait-text.js";
import type { RateLimitInfo } from "../http-response.js";
import type { Palette } from "../output/palette.js";
import { keyringName } from "../profiles/keyring-name.js";
import type { ResolvedSettings, Source } from "../profiles/resolve.js";
import { redactKey } from "../schema/redact-key.js";

/** The flag and the environment variable that give each value. */
const GIVEN_BY: Record<keyof ResolvedSettings["sources"], { flag: string; environment: string }> = {
  profile: { flag: "--profile", environment: "PETSTORE_PROFILE" },
  env: { flag: "--env", environment: "PETSTORE_ENV" },
  baseUrl: { flag: "--base-url", environment: "PETSTORE_BASE_URL" },
  apiKey: { flag: "--api-key-file", environment: "PETSTORE_API_KEY" },
};

export function describeSource(
  field: keyof ResolvedSettings["sources"],
  source: Source,
  profile: string,
): string {
  if (source === "flag" || source === "environment") return `from ${GIVEN_BY[field][source]}`;
  if (source === "profile") {
    return field === "profile" ? "the current profile" : `from profile ${profile}`;
  }
  return source === "default" ? "default" : "not set";
}

/** Where the profile keeps the key, when the key is the profile's. */
function keyStore(settings: ResolvedSettings): "keyring" | "file" | null {
  if (settings.sources.apiKey !== "profile") return null;
  return settings.keyring === undefined ? "file" : "keyring";
}

function keyLine(settings: ResolvedSettings, palette: Palette): string {
  const store = keyStore(settings);
  if (settings.apiKey === undefined && store !== "keyring") return palette.yellow("none");
  const source = describeSource("apiKey", settings.sources.apiKey, settings.profile);
  const where = {
    keyring: `, in ${keyringName() ?? "the system keyring"}`,
    file: ", in the config file",
  };
  const note = palette.dim(`(${source}${store === null ? "" : where[store]})`);
  // `profile show` does not read the keyring: it says where the key is, not which.
  return `${settings.apiKey === undefined ? "not read" : redactKey(settings.apiKey)} ${note}`;
}

/** Label and value pairs, in display order. */
export function settingsLines(settings: ResolvedSettings, palette: Palette): [string, string][] {
  const { sources, profile } = settings;
  const note = (field: keyof ResolvedSettings["sources"]) =>
    palette.dim(`(${describeSource(field, sources[field], profile)})`);
  return [
    ["Profile", `${profile} ${note("profile")}`],
    ["Environment", `${settings.env} ${note("env")}`],
    ["Base URL", `${settings.baseUrl} ${note("baseUrl")}`],
    ["API key", keyLine(settings, palette)],
  ];
}

export function formatLines(lines: readonly [string, string][]): string {
  const width = Math.max(...lines.map(([label]) => label.length)) + 2;
  return lines.map(([label, value]) => `${(label + ":").padEnd(width)}${value}\n`).join("");
}

export function settingsJson(settings: ResolvedSettings): Record<string, unknown> {
  return {
    profile: settings.profile,
    env: settings.env,
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey === undefined ? null : redactKey(settings.apiKey),
    keyStore: keyStore(settings),
    allowInsecure: settings.allowInsecure,
    sources: { ...settings.sources },
  };
}

const WINDOW_WORDS = { minute: " this minute", day: " today" } as const;

/**
 * What is left of the window that binds (which one, when the reset says), and when
 * it resets: "42 of 60 requests left this minute; resets in 35 s (at 12:01 UTC)".
 */
export function describeRateLimit(rateLimit: RateLimitInfo | undefined, nowMs: number): string {
  if (rateLimit === undefined) return "not reported by the service";
  const window = windowOf(rateLimit.resetAt, nowMs);
  const left = `${rateLimit.remaining} of ${rateLimit.limit} requests left${window ? WINDOW_WORDS[window] : ""}`;
  const wait = Math.max(0, rateLimit.resetAt - nowMs);
  return `${left}; resets in ${formatWait(wait)} (at ${clockTime(rateLimit.resetAt, nowMs)})`;
}
