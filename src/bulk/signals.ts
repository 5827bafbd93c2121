/**
 * Ctrl-C (SIGINT) and SIGTERM during `add --from`, for the real CLI only.
 * @returns a function that removes the handlers.
 */
import type { IO } from "../io.js";

/** First signal: stop starting rows and finish those in flight. Second: die as usual. */
export function installSignals(enabled: boolean, io: IO, stop: () => void): () => void {
  if (!enabled) return () => {};
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM"];
  let received = false;
  const remove = () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
  function onSignal(signal: NodeJS.Signals): void {
    if (received) {
      remove();
      process.kill(process.pid, signal);
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
