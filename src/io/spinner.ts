/** Spinners on stderr, with ora loaded on the first one only. */
import { decideColor } from "./decisions.js";
import type { Spinner } from "./types.js";

/** ora is loaded on the first spinner only; calls made before it arrives are replayed. */
export function startOraSpinner(text: string, env: NodeJS.ProcessEnv): Spinner {
  let current = text;
  let stopped: { finalText: string | undefined } | undefined;
  let spinner: { text: string; stop(): unknown } | undefined;
  void import("ora").then(({ default: ora }) => {
    if (stopped) {
      if (stopped.finalText !== undefined) process.stderr.write(stopped.finalText + "\n");
      return;
    }
    const colorOn = decideColor({ isTTY: true, env, noColorFlag: false });
    spinner = ora({
      text: current,
      stream: process.stderr,
      isEnabled: true,
      discardStdin: false,
      color: colorOn ? "cyan" : false,
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
