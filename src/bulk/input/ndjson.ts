/**
 * NDJSON: one JSON value per line; blank lines are skipped; CRLF is accepted.
 * Values are read by the lossless parser, so a categoryId above 2^53 stays exact.
 * A line too long to be a pet is reported without being held in memory.
 */
import { JsonSyntaxError } from "../../schema/json.js";
import { MAX_RECORD_CHARS, parseRecordJson, type InputRecord } from "./records.js";

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

  function* finishLine(text: string): Generator<InputRecord> {
    line++;
    if (oversized) {
      oversized = false;
      row++;
      yield { row, line, unreadable: `longer than ${MAX_RECORD_CHARS} characters` };
      return;
    }
    const content = text.endsWith("\r") ? text.slice(0, -1) : text;
    if (content.trim() === "") return;
    row++;
    yield recordOf(content, row, line);
  }

  for (const chunk of chunks) {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf("\n", start);
      if (end === -1) break;
      const text = partial === "" ? chunk.slice(start, end) : partial + chunk.slice(start, end);
      partial = "";
      yield* finishLine(text);
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
  if (partial !== "" || oversized) yield* finishLine(partial);
}
