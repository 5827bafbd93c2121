/**
 * The flags every request command shares, declared once and checked before
 * anything is sent: which profile/environment/address (resolved later, with the
 * environment variables and the stored profile), how long to wait, how often to
 * retry, and whether to log each request.
 */
import type { Command, Option } from "commander";
import { wholeNumberFlag } from "../schema/whole-number.js";
import { DEFAULT_TIMEOUT_MS } from "../client/client.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../client/retry.js";
import { hintedOption, PROFILES, words } from "../completion/hints.js";
import { envFlag } from "../env-flag.js";
import { UsageError } from "../errors.js";
import { ENVIRONMENT_NAMES } from "../profiles/environments.js";
import type { SettingsFlags } from "../profiles/resolve.js";

const MAX_TIMEOUT_SECONDS = 3600;

/** The request flags as commander gives them. */
export interface RequestFlags {
  profile?: string;
  env?: string;
  baseUrl?: string;
  allowInsecure?: boolean;
  timeout?: string;
  maxRetries?: string;
  /** false with --no-retry. */
  retry?: boolean;
  verbose?: boolean;
}

export type RequestOptions = ReturnType<typeof requestOptionsFrom>;

/** `-p, --profile <name>`, completed with the stored profiles' names. */
export function profileOption(description: string): Option {
  return hintedOption("-p, --profile <name>", description, PROFILES);
}

/** `--env <name>`, completed with the environments' names. */
export function envOption(description: string): Option {
  return hintedOption("--env <name>", description, words(ENVIRONMENT_NAMES));
}

export function addRequestOptions(command: Command): Command {
  return command
    .addOption(profileOption("stored profile for this run (PETSTORE_PROFILE)"))
    .addOption(envOption(`${ENVIRONMENT_NAMES.join(" or ")} for this run (PETSTORE_ENV)`))
    .option("--base-url <url>", "service address for this run (PETSTORE_BASE_URL)")
    .option(
      "--allow-insecure",
      "send the key over plain http:// to a host that is not this machine",
    )
    .option(
      "--timeout <seconds>",
      `give up on one attempt after this long (${DEFAULT_TIMEOUT_MS / 1000})`,
    )
    .option(
      "--max-retries <n>",
      `retries after 429, 5xx or a network error (${DEFAULT_RETRY_POLICY.limit})`,
    )
    .option("--no-retry", "never retry")
    .option(
      "--verbose",
      "log each request, its status, timing and rate limit on stderr (PETSTORE_DEBUG=1)",
    );
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

function retryPolicy(flags: RequestFlags): RetryPolicy {
  const text = flags.maxRetries;
  const noRetry = flags.retry === false;
  if (noRetry && text !== undefined) {
    throw new UsageError("--no-retry conflicts with --max-retries; give one of them");
  }
  if (noRetry) return { ...DEFAULT_RETRY_POLICY, limit: 0 };
  if (text === undefined) return DEFAULT_RETRY_POLICY;
  const parsed = wholeNumberFlag(text, "--max-retries", 0, 20);
  if (!parsed.ok) throw new UsageError(parsed.problem);
  return { ...DEFAULT_RETRY_POLICY, limit: parsed.value };
}

export function requestOptionsFrom(flags: RequestFlags, env: NodeJS.ProcessEnv) {
  const { profile, env: environment, baseUrl, allowInsecure } = flags;
  const settings: SettingsFlags = { profile, env: environment, baseUrl, allowInsecure };
  return {
    settings,
    timeoutMs: timeoutMs(flags.timeout),
    retry: retryPolicy(flags),
    /** Log each attempt on stderr (--verbose or PETSTORE_DEBUG=1). */
    verbose: flags.verbose === true || envFlag(env, "PETSTORE_DEBUG") === true,
  };
}
