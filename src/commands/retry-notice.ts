/**
 * Tells the person waiting why nothing happens: every wait of the retry wrapper
 * is announced on stderr ("rate limited; retrying in 12 s, attempt 2 of 4"). On a
 * terminal a spinner counts the seconds down; elsewhere (pipes, CI logs) it is
 * one plain line per wait.
 */
import type { RetryEvent } from "../client/types.js";
import { formatWait } from "../client/wait-text.js";
import type { IO } from "../io.js";

const WHY: Record<RetryEvent["reason"], string> = {
  rate_limited: "rate limited",
  rate_limit_exhausted: "rate limit used up",
  server_error: "service unavailable",
  network: "network error",
  timeout: "timed out",
};

/**
 * `in 1.3 s` under ten seconds, `in 12 s`, `in 4 min 5 s` past a minute: the wait
 * that follows, rounded up so it is never announced shorter than it is; `now` once over.
 */
function when(ms: number): string {
  if (ms <= 0) return "now";
  // Below ten seconds, whole seconds would misstate a wait by a large share of it.
  if (ms < 10_000) return `in ${Math.ceil(ms / 100) / 10} s`;
  return `in ${formatWait(ms)}`;
}

export function retryMessage(event: RetryEvent, remainingMs = event.waitMs): string {
  const verb = event.reason === "rate_limit_exhausted" ? "sending" : "retrying";
  return `${WHY[event.reason]}; ${verb} ${when(remainingMs)}, attempt ${event.attempt} of ${event.maxAttempts}`;
}

export function createRetryNotices(io: IO, now: () => number) {
  /** Ends the countdown of the last wait (the command finished, or failed). */
  let stop = () => {};
  return {
    onRetry(event: RetryEvent) {
      stop();
      const text = retryMessage(event);
      const spinner = io.startSpinner(text);
      if (!spinner) {
        io.stderr.write(text + "\n");
        return;
      }
      const endsAt = now() + event.waitMs;
      const timer = setInterval(() => {
        spinner.update(retryMessage(event, Math.max(0, endsAt - now())));
      }, 1000);
      timer.unref();
      stop = () => {
        clearInterval(timer);
        spinner.stop(text);
        stop = () => {};
      };
    },
    stop: () => stop(),
  };
}
