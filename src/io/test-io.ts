/**
 * The test twin of the process IO: every stream is a buffer, each with its own
 * TTY flag, so tests run commands with any combination of terminals.
 */
import { withDecisions } from "./decisions.js";
import type { InputStream, IO, OutputStream } from "./types.js";

export interface TestIOOptions {
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  stdinTTY?: boolean;
  /** Terminal width reported for TTY output streams. */
  columns?: number;
  env?: NodeJS.ProcessEnv;
  /** What stdin holds. */
  stdin?: string;
  /** Answers to hidden prompts, in order; an Error is thrown instead (`promptInterrupted()` is Ctrl-C). */
  hiddenAnswers?: (string | Error)[];
  /** Every write to stdout fails with this error (a full disk), kept for `settle()`. */
  stdoutFailure?: NodeJS.ErrnoException;
}

interface SpinnerEvent {
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
      if (answer instanceof Error) throw answer;
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
