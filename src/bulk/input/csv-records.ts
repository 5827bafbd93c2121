/**
 * CSV records as spreadsheets write them (RFC 4180, with the delimiter as a
 * parameter): fields in double quotes may hold the delimiter, line breaks and
 * doubled quotes; CRLF, LF or CR line ends. Incremental, one record at a time,
 * so a file of any length takes the memory of one record.
 */
import { InputFormatError, MAX_RECORD_CHARS } from "./input-record.js";

export interface RawRecord {
  fields: string[];
  line: number;
  /** A field went on after its closing quote (`"a"b`). */
  strayQuote?: number;
}

const QUOTE = 34;
const LF = 10;
const CR = 13;

/**
 * Splits text chunks into records of raw fields; the caller gives the records
 * meaning. `delimiter`: one character, `,` `;` or a tab.
 */
export function* rawRecords(chunks: Iterable<string>, delimiter: string): Generator<RawRecord> {
  const DELIMITER = delimiter.charCodeAt(0);
  let line = 1;
  let fields: string[] = [];
  let field = "";
  let recordLine = 1;
  let recordChars = 0;
  let inQuotes = false;
  /** Just read a quote inside a quoted field: either a doubled quote or the closing one. */
  let quoteSeen = false;
  /** The current field started with a quote (and is still that field). */
  let quoted = false;
  let strayQuote: number | undefined;
  let pendingCR = false;
  /** Inside quotes, the previous character was a CR (so a LF after it ends no extra line). */
  let quotedCR = false;
  let quoteStartLine = 0;
  let started = false;

  const endRecord = (): RawRecord => {
    fields.push(field);
    const record: RawRecord = { fields, line: recordLine };
    if (strayQuote !== undefined) record.strayQuote = strayQuote;
    fields = [];
    field = "";
    quoted = false;
    strayQuote = undefined;
    recordChars = 0;
    started = false;
    return record;
  };

  for (const chunk of chunks) {
    const length = chunk.length;
    let i = 0;
    if (pendingCR) {
      pendingCR = false;
      if (length > 0 && chunk.charCodeAt(0) === LF) i = 1;
    }
    let runStart = i;
    const flushRun = (end: number) => {
      if (end > runStart) field += chunk.slice(runStart, end);
    };
    for (; i < length; i++) {
      const c = chunk.charCodeAt(i);
      if (!started) {
        started = true;
        recordLine = line;
      }
      if (++recordChars > MAX_RECORD_CHARS) {
        throw new InputFormatError(
          `a record longer than ${MAX_RECORD_CHARS} characters${inQuotes ? `; is the quote opened on line ${quoteStartLine} closed?` : ""}`,
          recordLine,
        );
      }
      if (inQuotes) {
        if (quoteSeen) {
          quoteSeen = false;
          if (c === QUOTE) {
            field += '"';
            runStart = i + 1;
            continue;
          }
          inQuotes = false;
          runStart = i;
          // fall through: this character is outside the quotes
        } else if (c === QUOTE) {
          flushRun(i);
          quoteSeen = true;
          quotedCR = false;
          continue;
        } else {
          if (c === CR || (c === LF && !quotedCR)) line++;
          quotedCR = c === CR;
          continue;
        }
      }
      if (c === DELIMITER) {
        flushRun(i);
        fields.push(field);
        field = "";
        quoted = false;
        runStart = i + 1;
      } else if (c === LF || c === CR) {
        flushRun(i);
        const record = endRecord();
        line++;
        if (c === CR) {
          if (i + 1 === length) pendingCR = true;
          else if (chunk.charCodeAt(i + 1) === LF) i++;
        }
        runStart = i + 1;
        yield record;
      } else if (c === QUOTE && field === "" && runStart === i && !quoted) {
        inQuotes = true;
        quoted = true;
        quotedCR = false;
        quoteStartLine = line;
        runStart = i + 1;
      } else if (quoted && runStart === i && strayQuote === undefined) {
        // Text after a closing quote: keep it, but the record is not well-formed.
        strayQuote = fields.length + 1;
      }
    }
    if (inQuotes) {
      if (!quoteSeen) field += chunk.slice(runStart);
    } else {
      flushRun(length);
    }
  }
  if (inQuotes && !quoteSeen) {
    throw new InputFormatError(`the quoted field opened here is never closed`, quoteStartLine);
  }
  if (started) yield endRecord();
}
