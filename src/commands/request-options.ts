/**
 * The flags every request command shares, checked before anything is sent:
 * which profile/environment/address (resolved later, with the environment
 * variables and the stored profile), how long to wait, how often to retry, and
 * whether to log each request.
 */
import { wholeNumberFlag } from "../schema/whole-number.js";
import { DEFAULT_TIMEOUT_MS } from "../client/client.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../client/retry.js";
import { envFlag } from "../env-flag.js";
import { UsageError } from "../errors.js";
import type { SettingsFlags } from "../profiles/resolve.js";
import type { OptionValues } from "./fast-parse.js";
import { booleanOption, stringOption } from "./option-values.js";

const MAX_TIMEOUT_SECONDS = 3600;
const MAX_RETRIES_LIMIT = 20;

export interface RequestOptions {
  settings: SettingsFlags;
  timeoutMs: number;
  retry: RetryPolicy;
  /** Log each attempt on stderr (--verbose or PETSTORE_DEBUG=1). */
  verbose: boolean;
}

function timeoutMs(text: string | undefined): number {
  if (text === undefined) return DEFAULT_TIMEOUT_MS;
  const seconds = /^[0-9]{1,6}(\.[0-9]{1,3})?$/.test(text) ? Number(text) : NaN;
  if (!(seconds > 0 && seconds <= MAX_TIMEOUT_SECONDS)) {
    throw new UsageError(
      `--timeout must be a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS}; got ${JSON.stringify(text)}`,
    );
  }
  return Math.round(seconds * 1000);
}

function retryPolicy(values: OptionValues): RetryPolicy {
  const text = stringOption(values, "maxRetries");
  const noRetry = values.retry === false;
  if (noRetry && text !== undefined) {
    throw new UsageError("--no-retry conflicts with --max-retries; give one of them");
  }
  if (noRetry) return { ...DEFAULT_RETRY_POLICY, limit: 0 };
  if (text === undefined) return DEFAULT_RETRY_POLICY;
  const parsed = wholeNumberFlag(text, "--max-retries", 0, MAX_RETRIES_LIMIT);
  if (!parsed.ok) throw new UsageError(parsed.problem);
  return { ...DEFAULT_RETRY_POLICY, limit: parsed.value };
}

export function debugRequested(env: NodeJS.ProcessEnv): boolean {
  return envFlag(env, "PETSTORE_DEBUG") === true;
}

export function requestOptionsFrom(values: OptionValues, env: NodeJS.ProcessEnv): RequestOptions {
  const settings: SettingsFlags = {};
  const profile = stringOption(values, "profile");
  if (profile !== undefined) settings.profile = profile;
  const environment = stringOption(values, "env");
  if (environment !== undefined) settings.env = environment;
  const baseUrl = stringOption(values, "baseUrl");
  if (baseUrl !== undefined) settings.baseUrl = baseUrl;
  if (booleanOption(values, "allowInsecure")) settings.allowInsecure = true;
  return {
    settings,
    timeoutMs: timeoutMs(stringOption(values, "timeout")),
    retry: retryPolicy(values),
    verbose: booleanOption(values, "verbose") || debugRequested(env),
  };
}
