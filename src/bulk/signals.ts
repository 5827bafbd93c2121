/**
 * Ctrl-C (SIGINT) and SIGTERM during `add --from`, for the real CLI only.
 * @returns a function that removes the handlers.
 */
import { EXIT } from "../errors.js";
import type { IO } from "../io.js";

/**
 * Dies of `signal` at once. On POSIX the signal is raised again, so the shell
 * sees a death by it (exit 130 for Ctrl-C); Windows would turn that raise into
 * exit 1, so the process exits with 130 itself.
 */
function quitAtOnce(signal: NodeJS.Signals, platform: NodeJS.Platform): void {
  if (platform === "win32") process.exit(EXIT.INTERRUPTED);
  else process.kill(process.pid, signal);
}

/** First signal: stop starting rows and finish those in flight. Second: die as usual. */
export function installSignals(
  enabled: boolean,
  io: IO,
  stop: () => void,
  platform: NodeJS.Platform = process.platform,
): () => void {
  if (!enabled) return () => {};
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM"];
  let received = false;
  const remove = () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
  function onSignal(signal: NodeJS.Signals): void {
    if (received) {
      remove();
      quitAtOnce(signal, platform);
      return;
    }
    received = true;
    io.stderr.write(
      `\npetstore add: stopping; finishing the requests in flight (${signal === "SIGINT" ? "Ctrl-C" : signal} again to quit at once)\n`,
    );
    stop();
  }
  for (const signal of signals) process.on(signal, onSignal);
  return remove;
}
