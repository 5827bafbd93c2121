/**
 * Ctrl-C (SIGINT) and SIGTERM during `add --from`, for the real CLI only. The
 * first stops starting rows and finishes those in flight. The second dies at
 * once: on POSIX the signal is raised again, so the shell sees a death by it
 * (exit 130 for Ctrl-C); Windows would turn that raise into exit 1, so there the
 * process exits with 130 itself.
 * @returns a function that removes the handlers.
 */
import { EXIT } from "../errors.js";
import type { IO } from "../io.js";

export function installSignals(
  enabled: boolean,
  io: IO,
  stop: () => void,
  platform: NodeJS.Platform = process.platform,
): () => void {
  if (!enabled) return () => {};
  let received = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (received) {
      remove();
      if (platform === "win32") process.exit(EXIT.INTERRUPTED);
      else process.kill(process.pid, signal);
      return;
    }
    received = true;
    const which = signal === "SIGINT" ? "Ctrl-C" : signal;
    io.stderr.write(
      `\npetstore add: stopping; finishing the requests in flight (${which} again to quit at once)\n`,
    );
    stop();
  };
  const remove = () => {
    process.off("SIGINT", onSignal).off("SIGTERM", onSignal);
  };
  process.on("SIGINT", onSignal).on("SIGTERM", onSignal);
  return remove;
}
