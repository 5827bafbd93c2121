/**
 * A JSON array of pets, read element by element: a scanner counts the nesting
 * (strings and escapes understood) to find the commas between elements and the
 * array's end, and the lossless parser reads each element's text alone. A large
 * file therefore takes the memory of one element, and a broken element (a
 * missing comma between two included) is reported with its own line and column
 * while the others are still read. What breaks the array itself (no '[', an
 * empty element, no closing ']', text after it) ends the reading: nothing after
 * it can be trusted.
 */
import { JsonSyntaxError, parseJson } from "../../schema/json.js";
import { InputFormatError, MAX_RECORD_CHARS, type InputRecord } from "./input-record.js";

const isWhitespace = (c: string) => c === " " || c === "\n" || c === "\r" || c === "\t";

export async function* parseJsonArray(chunks: AsyncIterable<string>): AsyncGenerator<InputRecord> {
  /** 0 before the array, 1 between its elements, more inside one. */
  let depth = 0;
  let closed = false;
  let inString = false;
  let escaped = false;
  let line = 1;
  let column = 0;
  let row = 0;
  /** The element's text so far, and where its first character is. */
  let text = "";
  let start: { line: number; column: number } | undefined;

  const fail = (reason: string): never => {
    throw new InputFormatError(reason, line, column);
  };
  const element = (): InputRecord => {
    const where = start!;
    const source = text.trimEnd();
    text = "";
    start = undefined;
    row++;
    try {
      return { row, line: where.line, value: parseJson(source) };
    } catch (error) {
      if (!(error instanceof JsonSyntaxError)) throw error;
      const at =
        error.line === 1
          ? `line ${where.line}, column ${where.column + error.column - 1}`
          : `line ${where.line + error.line - 1}, column ${error.column}`;
      return { row, line: where.line, unreadable: `not valid JSON: ${error.reason} at ${at}` };
    }
  };

  for await (const chunk of chunks) {
    /** Where the element's text in this chunk begins. */
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (c === "\n") {
        line++;
        column = 0;
      } else {
        column++;
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (c === "\\") escaped = true;
        else if (c === '"') inString = false;
        continue;
      }
      if (closed || depth === 0) {
        if (isWhitespace(c) || c === "\uFEFF") continue;
        if (closed) fail(`nothing may follow the array's closing ']'; found ${JSON.stringify(c)}`);
        if (c !== "[") fail(`a JSON array must start with '['; found ${JSON.stringify(c)}`);
        depth = 1;
      } else if (depth === 1 && (c === "," || c === "]")) {
        if (start !== undefined) {
          text += chunk.slice(from, i);
          yield element();
        } else if (c === "," || row > 0) {
          fail(`a value is expected ${row === 0 ? "before" : "after"} ','`);
        }
        closed = c === "]";
      } else {
        if (start === undefined && !isWhitespace(c)) {
          start = { line, column };
          from = i;
        }
        if (c === '"') inString = true;
        else if (c === "{" || c === "[") depth++;
        else if ((c === "}" || c === "]") && depth > 1) depth--;
      }
    }
    if (start !== undefined) text += chunk.slice(from);
    if (text.length > MAX_RECORD_CHARS) {
      fail(`an element longer than ${MAX_RECORD_CHARS} characters`);
    }
  }
  // An empty input has no rows, as `[]` has none: the caller says so.
  if (depth > 0 && !closed) fail("the array is not closed with ']'");
}
