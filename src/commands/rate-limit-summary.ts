/**
 * The rate limit as `auth status` and `auth login` show it: what is left of the
 * window that binds (which one, when the reset says), and when it resets.
 */
import type { RateLimitInfo } from "../http-response.js";
import { clockTime, formatWait, windowOf } from "../client/wait-text.js";

const WINDOW_WORDS = { minute: " this minute", day: " today" } as const;

/** "42 of 60 requests left this minute; resets in 35 s (at 12:01 UTC)". */
export function describeRateLimit(rateLimit: RateLimitInfo | undefined, nowMs: number): string {
  if (rateLimit === undefined) return "not reported by the service";
  const window = windowOf(rateLimit.resetAt, nowMs);
  const left = `${rateLimit.remaining} of ${rateLimit.limit} requests left${window ? WINDOW_WORDS[window] : ""}`;
  const wait = Math.max(0, rateLimit.resetAt - nowMs);
  return `${left}; resets in ${formatWait(wait)} (at ${clockTime(rateLimit.resetAt, nowMs)})`;
}
