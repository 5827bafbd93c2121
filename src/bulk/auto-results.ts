/**
 * The results file a long run gets without asking. A run of more than
 * AUTO_RESULTS_ROWS rows (counted by the first pass) with neither --results nor
 * --resume records each row's outcome in `<input>.results.ndjson`, next to its
 * input, so that a run stopped half-way (Ctrl-C, a ban, a crash) can be resumed
 * rather than sent again. It is never an existing file:
 *
 * - a results file of an earlier run of the same input there refuses the run (exit
 *   2, nothing sent): running the same command again would add every row twice,
 *   and --resume is almost certainly what was meant;
 * - anything else there (a symbolic link, which is never followed; a directory; a
 *   file of another kind or content) is left as it was, and the run goes on
 *   without a results file, saying on stderr that it cannot be resumed;
 * - stdin (`--from -`) has nothing to put a file next to: the same note.
 */
import { constants } from "node:fs";
import { lstat } from "node:fs/promises";
import { basename } from "node:path";
import { UsageError } from "../errors.js";
import type { IO } from "../io.js";
import { openNoFollow } from "../files/file-safety.js";
import { linesOf, runLine } from "./prior-runs.js";
import { ResultsWriter, type RunHeader } from "./results.js";

/** A run of more rows than this gets a results file without asking. */
export const AUTO_RESULTS_ROWS = 100;

function cannotResume(io: IO, why: string): undefined {
  io.stderr.write(
    `petstore add: ${why}; no results file is written, so this run cannot be resumed if it stops (--results <file> records each row's outcome)\n`,
  );
  return undefined;
}

/** The `input` of the run line that begins a results file, if the file begins with one. */
async function runInput(path: string): Promise<string | undefined> {
  const handle = await openNoFollow(path, constants.O_RDONLY);
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    for await (const { text } of linesOf(handle)) {
      const input = runLine(text)?.input;
      return typeof input === "string" ? input : undefined;
    }
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * Opens the results file of a long run, or says on stderr why there is none.
 * Throws a UsageError (nothing sent) when the file records an earlier run of this input.
 */
export async function openAutoResults(
  from: string,
  rows: number,
  header: RunHeader,
  concurrency: number,
  io: IO,
): Promise<ResultsWriter | undefined> {
  if (rows <= AUTO_RESULTS_ROWS) return undefined;
  if (from === "-") return cannotResume(io, "the rows come from stdin");
  const path = `${from}.results.ndjson`;
  const info = await lstat(path).catch((error: NodeJS.ErrnoException) => error);
  if (info instanceof Error) {
    if (info.code !== "ENOENT") return cannotResume(io, `${path} cannot be checked (${info.code})`);
  } else if (info.isSymbolicLink()) {
    return cannotResume(io, `${path} is a symbolic link, which is never followed`);
  } else if (!info.isFile()) {
    return cannotResume(io, `${path} is not a regular file`);
  } else {
    const input = await runInput(path).catch(() => undefined);
    if (input !== undefined && basename(input) === basename(from)) {
      throw new UsageError(
        `${path} records an earlier run of ${from}; nothing was sent`,
        `to continue that run: --resume ${path}; to send every row again, move that file away or give --results <new file>`,
      );
    }
    return cannotResume(io, `${path} is not the results file of ${from} and was left as it was`);
  }
  try {
    const results = ResultsWriter.open({ path, header, concurrency, exclusive: true });
    io.stderr.write(
      `petstore add: each row's outcome goes to ${path} (if the run stops, --resume ${path} continues it)\n`,
    );
    return results;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return cannotResume(io, error.message);
  }
}
