/** What a command sees of the streams it talks to (see src/io.ts). */

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
  /** The input as it arrives (`add --from -` streams large files). */
  chunks(): AsyncIterable<Uint8Array>;
  /**
   * One line typed at the terminal without echo (for API keys); the prompt goes
   * to stderr. Ctrl-C rejects with an error whose code is `ABORT_ERR` (as Node's
   * own aborted operations); Ctrl-D before Enter rejects with any other error.
   */
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
  /**
   * A spinner when stderr is an interactive terminal and not a CI log (see
   * `decideSpinner`), otherwise undefined (callers print plain lines).
   */
  startSpinner(text: string): Spinner | undefined;
  /** For an interactive prompt: keys from stdin, drawn on stderr. Only the process IO has it. */
  promptStreams?(): { input: NodeJS.ReadStream; output: NodeJS.WriteStream };
}
