/**
 * The streams a command talks to, and what each of them is: a terminal or not,
 * coloured or not, able to show a spinner or not. Commands never touch `process`
 * streams directly, so tests run them against `createTestIO()` buffers with any
 * combination of TTY flags (the GitHub CLI's IOStreams).
 *
 * Nothing heavy is imported here: chalk and ora load only when a stream is a
 * coloured terminal (see output/palette.ts and `startSpinner`).
 */

import { writeSync } from "node:fs";
import { isatty } from "node:tty";
import { envFlag } from "./env-flag.js";

export interface OutputStream {
  /** Never throws: a failed write is kept for `settle()`, and what follows it is dropped. */
  write(text: string): void;
  readonly isTTY: boolean;
  /** Terminal width, when the stream is a terminal that reports one. */
  readonly columns: number | undefined;
  /**
   * Waits for everything written so far to reach the descriptor, then gives the
   * error that stopped a write (a full disk, a closed descriptor), if one did. A
   * reader that went away (EPIPE) is no error: the output just ends.
   */
  settle(): Promise<NodeJS.ErrnoException | undefined>;
}

export interface InputStream {
  readonly isTTY: boolean;
  /** Everything until end of input, as UTF-8. */
  readAll(): Promise<string>;
  /** The input as it arrives (`add --from -` streams large files); without it, readAll. */
  chunks?(): AsyncIterable<Uint8Array>;
  /** One line typed at the terminal without echo (for API keys); the prompt goes to stderr. */
  readHiddenLine(prompt: string): Promise<string>;
}

/** A progress line on stderr that redraws itself; only ever shown on a terminal. */
export interface Spinner {
  update(text: string): void;
  /** Removes the spinner; `finalText`, when given, stays on stderr as a plain line. */
  stop(finalText?: string): void;
}

export type StreamName = "stdout" | "stderr";

export interface IO {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly stdin: InputStream;
  /** Applies `--no-color` for the rest of the run. */
  disableColor(): void;
  /** The colour decision for one stream (see `decideColor`). */
  colorEnabled(stream: StreamName): boolean;
  /** Spinners need stderr to be an interactive terminal, and never run in CI logs. */
  spinnerEnabled(): boolean;
  /** A spinner when `spinnerEnabled()`, otherwise undefined (callers print plain lines). */
  startSpinner(text: string): Spinner | undefined;
  /** For an interactive prompt: keys from stdin, drawn on stderr. Only the process IO has it. */
  promptStreams?(): { input: NodeJS.ReadStream; output: NodeJS.WriteStream };
}

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
export function decideSpinner(options: {
  stderrIsTTY: boolean;
  stderrColumns: number | undefined;
  env: NodeJS.ProcessEnv;
}): boolean {
  const { stderrIsTTY, stderrColumns, env } = options;
  if (!stderrIsTTY || !stderrColumns || env.TERM === "dumb") return false;
  // CI=true, CI=1, CI=github...: any value but an "off" one means a CI log.
  return envFlag(env, "CI") === false;
}

/**
 * A process output stream written with `fs.writeSync` while it takes the data:
 * creating `process.stdout` costs a few milliseconds of a one-shot command's
 * start-up. If the descriptor is non-blocking and full (EAGAIN), the rest goes
 * through the stream, which waits for the reader. A reader that went away
 * (EPIPE, as in `petstore list | head -1`) ends the output quietly; any other
 * failure (ENOSPC on a full disk) ends it too, and `settle()` reports it.
 */
function processStream(fd: 1 | 2, stream: () => NodeJS.WriteStream): OutputStream {
  let closed = false;
  let viaStream = false;
  let failure: NodeJS.ErrnoException | undefined;
  let pending = 0;
  const drained: (() => void)[] = [];
  const isTTY = isatty(fd);
  const fail = (error: NodeJS.ErrnoException) => {
    if (!closed && error.code !== "EPIPE") failure = error;
    closed = true;
  };
  const wrote = (error?: Error | null) => {
    if (error) fail(error);
    if (--pending > 0) return;
    for (const resolve of drained.splice(0)) resolve();
  };
  const toStream = (data: Buffer) => {
    const target = stream();
    if (!viaStream) {
      viaStream = true;
      target.on("error", fail);
    }
    pending++;
    target.write(data, wrote);
  };
  return {
    write(text) {
      if (closed) return;
      const data = Buffer.from(text, "utf8");
      if (viaStream) return toStream(data);
      let offset = 0;
      try {
        while (offset < data.length) {
          const written = writeSync(fd, data, offset);
          // A terminal that hung up can accept nothing forever: stop rather than spin.
          if (written <= 0) {
            closed = true;
            return;
          }
          offset += written;
        }
      } catch (error) {
        const failed = error as NodeJS.ErrnoException;
        if (failed.code === "EAGAIN") toStream(data.subarray(offset));
        else fail(failed);
      }
    },
    isTTY,
    get columns() {
      return isTTY ? stream().columns : undefined;
    },
    settle() {
      if (pending === 0) return Promise.resolve(failure);
      return new Promise((resolve) => drained.push(() => resolve(failure)));
    },
  };
}

function processStdin(): InputStream {
  return {
    get isTTY() {
      return process.stdin.isTTY === true;
    },
    async readAll() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
    chunks: () => process.stdin,
    readHiddenLine: (prompt) => readHiddenLine(process.stdin, process.stderr, prompt),
  };
}

/** Reads one line in raw mode, echoing nothing; Ctrl-C or Ctrl-D before Enter rejects. */
function readHiddenLine(
  input: NodeJS.ReadStream,
  output: NodeJS.WriteStream,
  prompt: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let line = "";
    const finish = (error?: Error) => {
      input.off("data", onData);
      input.setRawMode(false);
      input.pause();
      output.write("\n");
      if (error) reject(error);
      else resolve(line);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return finish();
        if (ch === "\u0003" || ch === "\u0004") return finish(new Error("cancelled"));
        if (ch === "\u007f" || ch === "\b") line = line.slice(0, -1);
        else line += ch;
      }
    };
    // Echo goes off before the prompt shows: what is typed after it never appears.
    input.setRawMode(true);
    output.write(prompt);
    input.resume();
    input.on("data", onData);
  });
}

/** Shared by the real and the test IO: colour and spinner decisions from TTY flags and env. */
function withDecisions(
  streams: { stdout: OutputStream; stderr: OutputStream; stdin: InputStream },
  env: NodeJS.ProcessEnv,
  makeSpinner: (text: string) => Spinner,
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
    spinnerEnabled() {
      return decideSpinner({
        stderrIsTTY: streams.stderr.isTTY,
        stderrColumns: streams.stderr.columns,
        env,
      });
    },
    startSpinner(text) {
      return io.spinnerEnabled() ? makeSpinner(text) : undefined;
    },
  };
  return io;
}

export function createProcessIO(env: NodeJS.ProcessEnv = process.env): IO {
  const io = withDecisions(
    {
      stdout: processStream(1, () => process.stdout),
      stderr: processStream(2, () => process.stderr),
      stdin: processStdin(),
    },
    env,
    (text) => startOraSpinner(text, env),
  );
  io.promptStreams = () => ({ input: process.stdin, output: process.stderr });
  return io;
}

/** ora is loaded on the first spinner only; calls made before it arrives are replayed. */
function startOraSpinner(text: string, env: NodeJS.ProcessEnv): Spinner {
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

export interface TestIOOptions {
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  stdinTTY?: boolean;
  /** Terminal width reported for TTY output streams. */
  columns?: number;
  env?: NodeJS.ProcessEnv;
  /** What stdin holds. */
  stdin?: string;
  /** Answers to hidden prompts, in order. */
  hiddenAnswers?: string[];
  /** Every write to stdout fails with this error (a full disk), kept for `settle()`. */
  stdoutFailure?: NodeJS.ErrnoException;
}

export interface SpinnerEvent {
  event: "start" | "update" | "stop";
  text: string | undefined;
}

export interface TestIO extends IO {
  /** Everything written to stdout so far. */
  out(): string;
  err(): string;
  readonly spinnerEvents: SpinnerEvent[];
  /** Writes and spinner events in the order they happened: `stdout`, `stderr`, `spinner:start`. */
  readonly transcript: string[];
  /** The prompts shown for hidden input. */
  readonly prompts: string[];
}

/** The test twin: every stream is a buffer, each with its own TTY flag. */
export function createTestIO(options: TestIOOptions = {}): TestIO {
  let out = "";
  let err = "";
  const spinnerEvents: SpinnerEvent[] = [];
  const transcript: string[] = [];
  const prompts: string[] = [];
  const answers = [...(options.hiddenAnswers ?? [])];
  const columns = options.columns ?? 80;
  const output = (
    isTTY: boolean,
    append: (text: string) => void,
    failure?: NodeJS.ErrnoException,
  ): OutputStream => ({
    write: failure ? () => undefined : append,
    isTTY,
    columns: isTTY ? columns : undefined,
    settle: async () => failure,
  });
  const stdin: InputStream = {
    isTTY: options.stdinTTY ?? false,
    readAll: async () => options.stdin ?? "",
    async readHiddenLine(prompt) {
      prompts.push(prompt);
      const answer = answers.shift();
      if (answer === undefined) throw new Error("cancelled");
      return answer;
    },
  };
  const io = withDecisions(
    {
      stdout: output(
        options.stdoutTTY ?? false,
        (text) => {
          transcript.push("stdout");
          out += text;
        },
        options.stdoutFailure,
      ),
      stderr: output(options.stderrTTY ?? false, (text) => {
        transcript.push("stderr");
        err += text;
      }),
      stdin,
    },
    options.env ?? {},
    (text) => {
      spinnerEvents.push({ event: "start", text });
      transcript.push("spinner:start");
      return {
        update: (next) => void spinnerEvents.push({ event: "update", text: next }),
        stop(finalText) {
          spinnerEvents.push({ event: "stop", text: finalText });
          transcript.push("spinner:stop");
          if (finalText !== undefined) err += finalText + "\n";
        },
      };
    },
  );
  return Object.assign(io, {
    out: () => out,
    err: () => err,
    spinnerEvents,
    transcript,
    prompts,
  });
}
