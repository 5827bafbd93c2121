/**
 * NDJSON: one JSON value per line; blank lines are skipped; CRLF is accepted.
 * Values are read by the lossless parser, so a categoryId above 2^53 stays exact.
 * A line too long to be a pet is reported without being held in memory.
 */
import { JsonSyntaxError } from "../../schema/json.js";
import { MAX_RECORD_CHARS, parseRecordJson, type InputRecord } from "./input-record.js";

function recordOf(text: string, row: number, line: number): InputRecord {
  try {
    return { row, line, value: parseRecordJson(text) };
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    return { row, line, unreadable: `not valid JSON: ${error.reason} at column ${error.column}` };
  }
}

export function* parseNdjson(chunks: Iterable<string>): Generator<InputRecord> {
  let line = 0;
  let row = 0;
  let partial = "";
  let oversized = false;

  /** The record a line holds; undefined for a blank line. */
  function finishLine(text: string): InputRecord | undefined {
    line++;
    if (oversized) {
      oversized = false;
      row++;
      return { row, line, unreadable: `longer than ${MAX_RECORD_CHARS} characters` };
    }
    const content = text.endsWith("\r") ? text.slice(0, -1) : text;
    if (content.trim() === "") return undefined;
    row++;
    return recordOf(content, row, line);
  }

  for (const chunk of chunks) {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf("\n", start);
      if (end === -1) break;
      const text = partial === "" ? chunk.slice(start, end) : partial + chunk.slice(start, end);
      partial = "";
      const record = finishLine(text);
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
  if (partial !== "" || oversized) {
    const record = finishLine(partial);
    if (record !== undefined) yield record;
  }
}
