/**
 * NDJSON: one JSON value per line; blank lines are skipped; CRLF is accepted.
 * Values are read by the lossless parser, so a categoryId above 2^53 stays exact.
 * A line too long to be a pet is reported without being held in memory.
 */
import { JsonSyntaxError, parseJson } from "../../schema/json.js";
import { MAX_RECORD_CHARS, type InputRecord } from "./input-record.js";

export async function* parseNdjson(chunks: AsyncIterable<string>): AsyncGenerator<InputRecord> {
  let line = 0;
  let row = 0;
  let partial = "";
  let oversized = false;

  /** The record a line holds; undefined for a blank line. */
  function finishLine(text: string): InputRecord | undefined {
    line++;
    if (oversized) {
      oversized = false;
      return { row: ++row, line, unreadable: `longer than ${MAX_RECORD_CHARS} characters` };
    }
    const content = text.endsWith("\r") ? text.slice(0, -1) : text;
    if (content.trim() === "") return undefined;
    row++;
    try {
      return { row, line, value: parseJson(content) };
    } catch (error) {
      if (!(error instanceof JsonSyntaxError)) throw error;
      return { row, line, unreadable: `not valid JSON: ${error.reason} at column ${error.column}` };
    }
  }

  for await (const chunk of chunks) {
    let start = 0;
    for (let end = chunk.indexOf("\n"); end !== -1; end = chunk.indexOf("\n", start)) {
      const record = finishLine(partial + chunk.slice(start, end));
      partial = "";
      if (record !== undefined) yield record;
      start = end + 1;
    }
    if (!oversized) {
      partial += chunk.slice(start);
      if (partial.length > MAX_RECORD_CHARS) {
        oversized = true;
        partial = "";
      }
    }
  }
  const record = partial !== "" || oversized ? finishLine(partial) : undefined;
  if (record !== undefined) yield record;
}
