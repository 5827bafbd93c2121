/**
 * The streams a command talks to, and what each of them is: a terminal or not,
 * coloured or not, able to show a spinner or not. Commands never touch `process`
 * streams directly, so tests run them against `createTestIO()` buffers with any
 * combination of TTY flags (the GitHub CLI's IOStreams).
 *
 * Nothing heavy is imported here: chalk and ora load only when a stream is a
 * coloured terminal (see output/palette.ts and `startSpinner`).
 */

import { withDecisions } from "./io/decisions.js";
import { processStdin, processStream } from "./io/process-streams.js";
import { startOraSpinner } from "./io/spinner.js";
import type { IO } from "./io/types.js";

export type { InputStream, IO, OutputStream, Spinner, StreamName } from "./io/types.js";

export function createProcessIO(env: NodeJS.ProcessEnv = process.env): IO {
  const io = withDecisions(
    {
      stdout: processStream(1, () => process.stdout),
      stderr: processStream(2, () => process.stderr),
      stdin: processStdin(),
    },
    env,
    startOraSpinner,
  );
  io.promptStreams = () => ({ input: process.stdin, output: process.stderr });
  return io;
}
