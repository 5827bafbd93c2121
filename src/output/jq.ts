/**
 * `--jq <filter>`: jq itself, compiled to WebAssembly (jq-wasm), loaded only when
 * the flag is given (dist/jq.cjs). The filter is compiled before the command runs;
 * then each JSON text the command writes to stdout goes through it, and what jq
 * prints goes on, as `jq -r` prints it.
 *
 * jq is given the text and its output is taken as text: an int64 the filter does
 * not change comes through digit for digit (nothing here parses a number). jq runs
 * without -r because jq-wasm trims what jq prints, which would take the whitespace
 * at either end of a raw string with it (a last TSV field left empty): each string
 * jq prints is a line of its own starting with a quote (the lines of an array or an
 * object are indented), which jqText prints raw.
 */
import { existsSync } from "node:fs";
import { getAsset, isSea } from "node:sea";
import { setFlagsFromString } from "node:v8";
import { loadJq, type JqLoadOptions } from "jq-wasm";
import { UsageError } from "../errors.js";
import type { OutputStream } from "../io.js";
import { dataText, escapeJsonControls } from "./text-escape.js";
import { JQ_FAILED } from "./write-failure.js";

/** `--` ends jq's options: a filter may start with `-` (`-.id`). */
const ARGS = ["--"];

/**
 * Where jq.wasm is: an SEA asset in the standalone binary, beside this bundle in
 * the npm package (dist/jq.wasm); the sources under a test runner take jq-wasm's own.
 */
function wasmSource(): JqLoadOptions {
  if (isSea()) return { wasmBinary: getAsset("jq.wasm") };
  const beside = new URL("jq.wasm", import.meta.url);
  return existsSync(beside) ? { wasmURL: beside } : {};
}

/**
 * jq's output as `jq -r` prints it, and as safe on a terminal as the rest of the
 * output: a string raw, but for the controls CSV escapes (ESC as `\x1b`; tab and
 * line feed are data); other values with C1 and bidirectional controls as `\u`
 * escapes, as `--json` has them. JSON.parse reads only strings: no number.
 */
export function jqText(output: string): string {
  return output
    .split("\n")
    .map((line) =>
      line.startsWith('"') ? dataText(JSON.parse(line) as string) : escapeJsonControls(line),
    )
    .join("\n");
}

/**
 * A stream that puts each text written to it (whole JSON texts) through `filter`
 * and writes jq's output to `stdout`, and what jq says on success (`debug`) to
 * `stderr`. A filter that does not compile is a usage error, thrown here: jq is
 * given no input, so nothing runs. One that fails on the data is the stream's
 * failure, kept for settle() as a write error is, and what follows is dropped.
 */
export async function jqStdout(
  stdout: OutputStream,
  stderr: OutputStream,
  filter: string,
): Promise<OutputStream> {
  // Liftoff's code only: V8 would compile jq's busy functions again, optimised, on other
  // threads, CPU that a one-shot command never earns back (docs/benchmarks.md, "--jq").
  setFlagsFromString("--liftoff-only");
  const jq = await loadJq(wasmSource());
  const compiled = jq.raw("", filter, ARGS);
  if (compiled.exitCode !== 0) {
    throw new UsageError(`the --jq filter does not compile:\n${compiled.stderr}`);
  }
  let failure: NodeJS.ErrnoException | undefined;
  /** Prints one run's output; false when jq failed (the failure is kept). */
  const print = (result: ReturnType<typeof jq.raw>) => {
    if (result.stdout !== "") stdout.write(jqText(result.stdout) + "\n");
    if (result.exitCode !== 0) {
      const message = result.stderr || `jq stopped with exit code ${result.exitCode}`;
      failure = Object.assign(new Error(message), { code: JQ_FAILED });
    } else if (result.stderr !== "") {
      stderr.write(result.stderr + "\n");
    }
    return result.exitCode === 0;
  };
  // The texts written within a moment go to jq in one run: a run costs about 2 ms whatever
  // its input (add --from writes a line a row; docs/benchmarks.md, "--jq"). A run that
  // fails or says anything on stderr is made again text by text, so that nothing after
  // the failing text is printed. A filter that reads its input stream itself (input,
  // inputs, input_line_number) or stops it (halt) gets each text alone.
  const batchable = !/\b(?:inputs?|input_line_number|halt(?:_error)?)\b/.test(filter);
  let pending: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const texts = pending;
    pending = [];
    if (failure !== undefined || texts.length === 0) return;
    const all =
      batchable || texts.length === 1 ? jq.raw(texts.join("\n"), filter, ARGS) : undefined;
    // jq-wasm reports an error on any text but the last only on stderr, with exit code 0.
    if (all !== undefined && (texts.length === 1 || (all.exitCode === 0 && all.stderr === ""))) {
      print(all);
    } else texts.every((text) => print(jq.raw(text, filter, ARGS)));
  };
  return {
    write(text) {
      pending.push(text);
      timer ??= setTimeout(flush, 20);
    },
    isTTY: stdout.isTTY,
    get columns() {
      return stdout.columns;
    },
    async settle() {
      flush();
      const written = await stdout.settle();
      return failure ?? written;
    },
  };
}
