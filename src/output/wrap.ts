/**
 * Text a person reads, fitted to the terminal: the width to wrap to, and lines
 * broken between words only, so a URL or a flag is never cut in two. The help
 * wraps with commander's own Help; this is for messages on the hot path
 * (`get`'s warning), where commander is not loaded.
 */
import type { OutputStream } from "../io.js";

/** Piped output (or a terminal that reports no size) is wrapped as gh and commander do: to 80. */
export const DEFAULT_WIDTH = 80;
/** Below this nothing lays out sensibly; narrower terminals get this width. */
const NARROWEST = 20;

/**
 * `COLUMNS` when it is a positive whole number (as ls reads it: a person who
 * sets it means it), else the terminal's width, else 80.
 */
export function textWidth(stream: OutputStream, env: NodeJS.ProcessEnv): number {
  const columns = /^[0-9]{1,4}$/.test(env.COLUMNS ?? "") ? Number(env.COLUMNS) : undefined;
  const width = columns !== undefined && columns > 0 ? columns : (stream.columns ?? DEFAULT_WIDTH);
  return Math.max(NARROWEST, width);
}

/**
 * `text` in lines of at most `width` characters, broken at spaces. A word
 * longer than the width gets a line of its own, whole.
 */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}
