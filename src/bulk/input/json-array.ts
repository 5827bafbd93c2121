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

const enum Phase {
  Start,
  FirstValue,
  Value,
  InValue,
  AfterValue,
  End,
}

function isWhitespace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function describe(ch: string): string {
  return ch.charCodeAt(0) < 0x20
    ? `U+${ch.charCodeAt(0).toString(16).padStart(4, "0")}`
    : `'${ch}'`;
}

export function* parseJsonArray(chunks: Iterable<string>): Generator<InputRecord> {
  let phase: Phase = Phase.Start;
  let line = 1;
  let column = 0;
  let row = 0;
  let text = "";
  let depth = 0;
  let inString = false;
  let escaped = false;
  let scalar = false;
  let startLine = 0;
  let startColumn = 0;

  const fail = (reason: string): never => {
    throw new InputFormatError(reason, line, column);
  };

  const element = (): InputRecord => {
    row++;
    const source = text;
    text = "";
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

  for (const chunk of chunks) {
    let runStart = phase === Phase.InValue ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (c === 10) {
        line++;
        column = 0;
      } else {
        column++;
      }
      if (phase === Phase.InValue) {
        let ended = false;
        let endsBefore = false;
        if (scalar) {
          if (isWhitespace(c) || c === 44 || c === 93 || c === 125) {
            ended = true;
            endsBefore = true;
          }
        } else if (inString) {
          if (escaped) escaped = false;
          else if (c === 92) escaped = true;
          else if (c === 34) {
            inString = false;
            if (depth === 0) ended = true;
          }
        } else if (c === 34) {
          inString = true;
        } else if (c === 123 || c === 91) {
          depth++;
        } else if (c === 125 || c === 93) {
          if (--depth === 0) ended = true;
        }
        if (!ended) continue;
        text += chunk.slice(runStart, endsBefore ? i : i + 1);
        runStart = -1;
        if (text.length > MAX_RECORD_CHARS)
          fail(`an element longer than ${MAX_RECORD_CHARS} characters`);
        yield element();
        phase = Phase.AfterValue;
        if (!endsBefore) continue;
        // The character that ended a number or literal belongs to what follows it.
      }
      if (isWhitespace(c)) continue;
      const ch = chunk[i]!;
      switch (phase) {
        case Phase.Start:
          if (c === 0xfeff) continue;
          if (c !== 91) fail(`a JSON array must start with '['; found ${describe(ch)}`);
          phase = Phase.FirstValue;
          break;
        case Phase.FirstValue:
        case Phase.Value:
          if (c === 93) {
            if (phase === Phase.Value) fail("a value is expected after ','");
            phase = Phase.End;
            break;
          }
          if (c === 44) fail("a value is expected before ','");
          phase = Phase.InValue;
          startLine = line;
          startColumn = column;
          runStart = i;
          depth = c === 123 || c === 91 ? 1 : 0;
          inString = c === 34;
          escaped = false;
          scalar = depth === 0 && !inString;
          break;
        case Phase.AfterValue:
          if (c === 44) phase = Phase.Value;
          else if (c === 93) phase = Phase.End;
          else fail(`',' or ']' is expected after an element; found ${describe(ch)}`);
          break;
        case Phase.End:
          fail(`nothing may follow the array's closing ']'; found ${describe(ch)}`);
      }
    }
    if (phase === Phase.InValue) {
      text += chunk.slice(runStart);
      if (text.length > MAX_RECORD_CHARS)
        fail(`an element longer than ${MAX_RECORD_CHARS} characters`);
    }
  }
  if (phase === Phase.InValue && scalar) {
    yield element();
    phase = Phase.AfterValue;
  }
  const ending = phase as Phase;
  // An empty input has no rows, as `[]` has none: the caller says so.
  if (ending !== Phase.End && ending !== Phase.Start) fail("the array is not closed with ']'");
}
