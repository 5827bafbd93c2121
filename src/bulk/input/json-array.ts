/**
 * A JSON array of pets, read element by element: a scanner finds where each
 * element starts and ends (strings, escapes and nesting understood), and the
 * lossless parser reads that element alone. A large file therefore takes the
 * memory of one element, and a broken element is reported with its own line and
 * column while the others are still read. Broken structure between elements (a
 * missing comma, an unclosed array) ends the reading: nothing after it can be trusted.
 */
import { JsonSyntaxError } from "../../schema/json.js";
import {
  InputFormatError,
  MAX_RECORD_CHARS,
  parseRecordJson,
  type InputRecord,
} from "./input-record.js";

const isWhitespace = (c: string) => c === " " || c === "\n" || c === "\r" || c === "\t";

function describe(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x20 ? `U+${code.toString(16).padStart(4, "0")}` : `'${c}'`;
}

export async function* parseJsonArray(chunks: AsyncIterable<string>): AsyncGenerator<InputRecord> {
  /** Before '[', before the first element or one after ',', in one, after one, after ']'. */
  let phase: "start" | "first" | "next" | "in" | "after" | "end" = "start";
  let line = 1;
  let column = 0;
  let row = 0;
  /** The element's text, and where it starts. */
  let text = "";
  let startLine = 0;
  let startColumn = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;

  const fail = (reason: string): never => {
    throw new InputFormatError(reason, line, column);
  };
  const element = (): InputRecord => {
    row++;
    const source = text;
    text = "";
    if (source.length > MAX_RECORD_CHARS)
      fail(`an element longer than ${MAX_RECORD_CHARS} characters`);
    try {
      return { row, line: startLine, value: parseRecordJson(source) };
    } catch (error) {
      if (!(error instanceof JsonSyntaxError)) throw error;
      const at =
        error.line === 1
          ? `line ${startLine}, column ${startColumn + error.column - 1}`
          : `line ${startLine + error.line - 1}, column ${error.column}`;
      return { row, line: startLine, unreadable: `not valid JSON: ${error.reason} at ${at}` };
    }
  };

  for await (const chunk of chunks) {
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (c === "\n") {
        line++;
        column = 0;
      } else {
        column++;
      }
      if (phase === "in") {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === "\\") escaped = true;
          else if (c === '"') inString = false;
          continue;
        }
        if (c === '"') inString = true;
        else if (c === "{" || c === "[") depth++;
        else if ((c === "}" || c === "]") && depth > 0) depth--;
        else if (depth === 0 && (isWhitespace(c) || c === "," || c === "]" || c === "}")) {
          // The element ended before this character, which belongs to what follows it.
          text += chunk.slice(from, i);
          yield element();
          phase = "after";
        }
        if (phase === "in") continue;
      }
      if (isWhitespace(c)) continue;
      switch (phase) {
        case "start":
          if (c === "\uFEFF") continue;
          if (c !== "[") fail(`a JSON array must start with '['; found ${describe(c)}`);
          phase = "first";
          break;
        case "first":
        case "next":
          if (c === "]") {
            if (phase === "next") fail("a value is expected after ','");
            phase = "end";
          } else if (c === ",") {
            fail("a value is expected before ','");
          } else {
            phase = "in";
            startLine = line;
            startColumn = column;
            from = i;
            depth = c === "{" || c === "[" ? 1 : 0;
            inString = c === '"';
            escaped = false;
          }
          break;
        case "after":
          if (c === ",") phase = "next";
          else if (c === "]") phase = "end";
          else fail(`',' or ']' is expected after an element; found ${describe(c)}`);
          break;
        case "end":
          fail(`nothing may follow the array's closing ']'; found ${describe(c)}`);
      }
    }
    if (phase === "in") {
      text += chunk.slice(from);
      if (text.length > MAX_RECORD_CHARS)
        fail(`an element longer than ${MAX_RECORD_CHARS} characters`);
    }
  }
  if (phase === "in" && depth === 0 && !inString) {
    yield element();
    phase = "after";
  }
  // An empty input has no rows, as `[]` has none: the caller says so.
  const ending: string = phase;
  if (ending !== "end" && ending !== "start") fail("the array is not closed with ']'");
}
