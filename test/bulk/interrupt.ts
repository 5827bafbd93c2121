/**
 * Ctrl-C during `petstore add --from`, and `--resume` after it, for a CLI started in
 * any way: the npm package under Windows node.exe (test/platforms/) or a standalone
 * binary, natively or emulated (test/dist/binary.test.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { waitForOutput, type Exit, type Started } from "../dist/run.js";
import { csvOf, finalOutcomes, resultLines } from "./helpers.js";

/**
 * Sends `ctrlCs` Ctrl-Cs to `run`, an `add --from` writing `results`: the first once
 * `results` holds 5 lines with `after`, the second once the first is acknowledged.
 * Resolves with its end.
 */
export async function interrupted<E extends Exit>(
  run: Started & { exited: Promise<E> },
  results: string,
  { after, ctrlCs, timeoutMs }: { after: string; ctrlCs: number; timeoutMs: number },
): Promise<E> {
  const seen = () => {
    try {
      return readFileSync(results, "utf8").split(after).length - 1;
    } catch {
      return 0;
    }
  };
  await waitForOutput(run, () => seen() >= 5, timeoutMs);
  run.signal("SIGINT");
  if (ctrlCs > 1) {
    await waitForOutput(run, () => run.stderr().includes("stopping"), timeoutMs);
    run.signal("SIGINT");
  }
  return run.exited;
}

export interface StopAndResume {
  /** The test's own directory, for the input and the results file. */
  dir: string;
  /** Starts the CLI with `args`, against a service. */
  start(args: string[]): Started;
  /** A path of `dir` as the CLI names it. */
  path(path: string): string;
  /** The names of every pet the service has now. */
  names(): string[] | Promise<string[]>;
  timeoutMs: number;
}

/**
 * `add --from` of 60 rows, two at a time: a Ctrl-C partway ends it with 130, every row
 * it recorded added; `--resume` then adds the rest, and the service has each row once.
 */
export async function stopAndResume({
  dir,
  start,
  path,
  names,
  timeoutMs,
}: StopAndResume): Promise<void> {
  const rows = 60;
  const input = join(dir, "stop-and-resume.csv");
  const results = join(dir, "stop-and-resume.results");
  writeFileSync(input, csvOf(rows, "resumed"));
  const args = ["add", "--from", path(input), "--concurrency", "2"];

  const stopped = await interrupted(start([...args, "--results", path(results)]), results, {
    after: '"outcome":"added"',
    ctrlCs: 1,
    timeoutMs,
  });
  expect(stopped.code, stopped.stderr).toBe(130);
  expect(stopped.stderr).toContain("stopping; finishing the requests in flight");
  const recorded = finalOutcomes(await resultLines(results));
  expect([...recorded.values()].every((line) => line.outcome === "added")).toBe(true);
  expect(recorded.size).toBeLessThan(rows);

  const resumed = await start([...args, "--resume", path(results)]).exited;
  expect(resumed.code, resumed.stderr).toBe(0);
  const added = (await names()).filter((name) => name.startsWith("resumed-"));
  expect(added.sort()).toEqual(Array.from({ length: rows }, (_, i) => `resumed-${i + 1}`).sort());
}
