/** Spinners on stderr, with ora loaded on the first one only. */
import type { Spinner } from "./types.js";

/** ora is loaded on the first spinner only; calls made before it arrives are replayed. */
export function startOraSpinner(text: string, color: boolean): Spinner {
  let current = text;
  let stopped: { finalText: string | undefined } | undefined;
  let spinner: { text: string; stop(): unknown } | undefined;
  void import("ora").then(({ default: ora }) => {
    if (stopped) {
      if (stopped.finalText !== undefined) process.stderr.write(stopped.finalText + "\n");
      return;
    }
    spinner = ora({
      text: current,
      stream: process.stderr,
      isEnabled: true,
      discardStdin: false,
      color: color ? "cyan" : false,
    }).start();
  });
  return {
    update(next) {
      current = next;
      if (spinner) spinner.text = next;
    },
    stop(finalText) {
      stopped = { finalText };
      if (!spinner) return;
      spinner.stop();
      if (finalText !== undefined) process.stderr.write(finalText + "\n");
    },
  };
}
