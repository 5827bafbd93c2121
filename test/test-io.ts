/**
 * The test twin of the process IO: every stream is a buffer, each with its own
 * TTY flag, so tests run commands with any combination of terminals.
 */
import { withDecisions } from "../src/io/decisions.js";
import type { InputStream, OutputStream } from "../src/io/types.js";

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

export type TestIO = ReturnType<typeof createTestIO>;

/** The test twin: every stream is a buffer, each with its own TTY flag. */
export function createTestIO(options: TestIOOptions = {}) {
  const written = { stdout: "", stderr: "" };
  const spinnerEvents: { event: "start" | "update" | "stop"; text: string | undefined }[] = [];
  /** Writes and spinner events in the order they happened: `stdout`, `stderr`, `spinner:start`. */
  const transcript: string[] = [];
  /** The prompts shown for hidden input. */
  const prompts: string[] = [];
  const answers = [...(options.hiddenAnswers ?? [])];
  const output = (
    name: "stdout" | "stderr",
    isTTY = false,
    failure?: NodeJS.ErrnoException,
  ): OutputStream => ({
    write(text) {
      if (failure) return;
      transcript.push(name);
      written[name] += text;
    },
    isTTY,
    columns: isTTY ? (options.columns ?? 80) : undefined,
    settle: async () => failure,
  });
  const stdin: InputStream = {
    isTTY: options.stdinTTY ?? false,
    async *chunks() {
      yield Buffer.from(options.stdin ?? "");
    },
    async readHiddenLine(prompt) {
      prompts.push(prompt);
      const answer = answers.shift();
      if (answer === undefined) throw new Error("cancelled");
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  const streams = {
    stdout: output("stdout", options.stdoutTTY, options.stdoutFailure),
    stderr: output("stderr", options.stderrTTY),
    stdin,
  };
  const io = withDecisions(streams, options.env ?? {}, (text) => {
    spinnerEvents.push({ event: "start", text });
    transcript.push("spinner:start");
    return {
      update: (next) => void spinnerEvents.push({ event: "update", text: next }),
      stop(finalText) {
        spinnerEvents.push({ event: "stop", text: finalText });
        transcript.push("spinner:stop");
        if (finalText !== undefined) written.stderr += finalText + "\n";
      },
    };
  });
  return Object.assign(io, {
    /** Everything written to stdout so far. */
    out: () => written.stdout,
    err: () => written.stderr,
    spinnerEvents,
    transcript,
    prompts,
  });
}
