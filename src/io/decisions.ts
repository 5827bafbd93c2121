/**
 * Colour and spinner decisions from TTY flags, the environment and --no-color,
 * shared by the process IO and the test twin.
 */
import { envFlag } from "../env-flag.js";
import type { InputStream, IO, OutputStream, Spinner } from "./types.js";

/**
 * Colour for one stream. `--no-color` wins; then `FORCE_COLOR` (as in Node itself:
 * "0" or "false" turns colour off, any other value turns it on even when piped);
 * then `NO_COLOR` (any non-empty value, see no-color.org); then `TERM=dumb`; then
 * whether the stream is a terminal.
 */
export function decideColor(options: {
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  noColorFlag: boolean;
}): boolean {
  const { isTTY, env, noColorFlag } = options;
  if (noColorFlag) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.TERM === "dumb") return false;
  return isTTY;
}

/**
 * Spinners redraw a line with escape codes: a terminal only, never a CI log or a
 * dumb terminal, nor one that reports no width (ora cannot count its lines there).
 */
export function decideSpinner(
  stderr: Pick<OutputStream, "isTTY" | "columns">,
  env: NodeJS.ProcessEnv,
): boolean {
  if (!stderr.isTTY || !stderr.columns || env.TERM === "dumb") return false;
  // CI=true, CI=1, CI=github...: any value but an "off" one means a CI log.
  return envFlag(env, "CI") === false;
}

/** Shared by the real and the test IO: colour and spinner decisions from TTY flags and env. */
export function withDecisions(
  streams: { stdout: OutputStream; stderr: OutputStream; stdin: InputStream },
  env: NodeJS.ProcessEnv,
  makeSpinner: (text: string, color: boolean) => Spinner,
): IO {
  let noColorFlag = false;
  const io: IO = {
    ...streams,
    disableColor() {
      noColorFlag = true;
    },
    colorEnabled(stream) {
      return decideColor({ isTTY: streams[stream].isTTY, env, noColorFlag });
    },
    startSpinner(text) {
      if (!decideSpinner(streams.stderr, env)) return undefined;
      return makeSpinner(text, io.colorEnabled("stderr"));
    },
  };
  return io;
}
