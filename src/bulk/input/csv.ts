/**
 * CSV as spreadsheets write it (RFC 4180): comma-separated, fields in double
 * quotes may hold commas, line breaks and doubled quotes; CRLF, LF or CR line
 * ends. Parsed incrementally, one record at a time, so a file of any length
 * takes the memory of one record.
 *
 * The header names the columns: `name`, `categoryId` (or `category_id`) and
 * optionally `status`, in any order and any letter case. An empty cell is a
 * field left out (the schema then says whether it was required).
 */
import { InputFormatError, MAX_RECORD_CHARS, type InputRecord } from "./records.js";

type Column = "name" | "categoryId" | "status";

const COLUMN_NAMES: Record<string, Column> = {
  name: "name",
  categoryid: "categoryId",
  category_id: "categoryId",
  status: "status",
};

const COLUMNS_HELP = "the columns are name, categoryId (or category_id) and status";

interface RawRecord {
  fields: string[];
  line: number;
  /** A field went on after its closing quote (`"a"b`). */
  strayQuote?: number;
}

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

/** Splits text chunks into records of raw fields; the caller gives the records meaning. */
function* rawRecords(chunks: Iterable<string>): Generator<RawRecord> {
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
      if (c === COMMA) {
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

function isBlank(record: RawRecord): boolean {
  return record.fields.length === 1 && record.fields[0]!.trim() === "";
}

function columnsOf(header: RawRecord): Column[] {
  const columns: Column[] = [];
  for (const text of header.fields) {
    const name = text.trim();
    const column = COLUMN_NAMES[name.toLowerCase()];
    if (column === undefined) {
      throw new InputFormatError(
        `the CSV header has an unknown column ${JSON.stringify(name)}; ${COLUMNS_HELP}`,
        header.line,
      );
    }
    if (columns.includes(column)) {
      throw new InputFormatError(`the CSV header names the ${column} column twice`, header.line);
    }
    columns.push(column);
  }
  for (const required of ["name", "categoryId"] as const) {
    if (!columns.includes(required)) {
      throw new InputFormatError(
        `the CSV header has no ${required} column; ${COLUMNS_HELP}`,
        header.line,
      );
    }
  }
  return columns;
}

/** Digits become an int64 candidate and other numbers a number, so the schema can say what is wrong. */
function cellValue(column: Column, text: string): unknown {
  if (column === "name") return text;
  const trimmed = text.trim();
  if (column === "categoryId") {
    if (/^[+-]?[0-9]+$/.test(trimmed)) return BigInt(trimmed);
    if (/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(trimmed)) return Number(trimmed);
  }
  return trimmed;
}

export function* parseCsv(chunks: Iterable<string>): Generator<InputRecord> {
  let columns: Column[] | undefined;
  let row = 0;
  for (const record of rawRecords(chunks)) {
    if (isBlank(record)) continue;
    if (columns === undefined) {
      columns = columnsOf(record);
      continue;
    }
    row++;
    if (record.fields.length > columns.length) {
      yield {
        row,
        line: record.line,
        unreadable: `has ${record.fields.length} fields; the header has ${columns.length}`,
      };
      continue;
    }
    if (record.strayQuote !== undefined) {
      yield {
        row,
        line: record.line,
        unreadable: `field ${record.strayQuote} has text after its closing quote`,
      };
      continue;
    }
    const value: Record<string, unknown> = {};
    columns.forEach((column, index) => {
      const text = record.fields[index];
      if (text !== undefined && text !== "") value[column] = cellValue(column, text);
    });
    yield { row, line: record.line, value };
  }
}
