/**
 * CSV as spreadsheets export it, read by csv-parse. The header names the columns:
 * `name`, `categoryId` (or `category_id`) and optionally `status`, in any order and
 * any letter case; other columns are refused, or ignored with --ignore-unknown-columns.
 * An empty cell is a field left out (the schema then says whether it was required);
 * a row of empty cells is skipped like a blank line; a row with more or fewer
 * cells than the header is invalid. A quote out of place (`"B"x`, `a"b`) or one
 * never closed stops the reading, its line named: nothing after it can be trusted.
 *
 * The delimiter is `,`, `;` (Excel where the decimal mark is a comma) or a tab,
 * whichever splits the header line (the first line of the input's head that is
 * not blank) into the most known column names; a tie goes to the comma, then `;`.
 * csv-parse's own `delimiter_auto` scores how evenly a candidate splits the lines,
 * not which one finds the known names.
 */
import { pipeline } from "node:stream";
import { CsvError, parse, type Options } from "csv-parse";
import {
  InputFormatError,
  MAX_RECORD_CHARS,
  type InputRecord,
  type ParseOptions,
} from "./input-record.js";

type Column = "name" | "categoryId" | "status";

/** A record's cells, and the line it starts on. */
type Read = { record: string[]; start: number };

const COLUMN_NAMES: Record<string, Column> = {
  name: "name",
  categoryid: "categoryId",
  category_id: "categoryId",
  status: "status",
};

const COLUMNS_HELP = "the columns are name, categoryId (or category_id) and status";

/** In the order a tie goes. */
const DELIMITERS = [",", ";", "\t"];

/** What stops the reading, in words (csv-parse's name the parser's state). */
const ERRORS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: "the quoted field opened here is never closed",
  CSV_INVALID_CLOSING_QUOTE: "a quoted field has text after its closing quote",
  INVALID_OPENING_QUOTE:
    "a field holds a quote but does not start with one (quote the field and double its quotes)",
  CSV_MAX_RECORD_SIZE: `a record longer than ${MAX_RECORD_CHARS} characters; is every quote closed?`,
};

function columnOf(text: string): Column | undefined {
  const name = text.trim().toLowerCase();
  return Object.hasOwn(COLUMN_NAMES, name) ? COLUMN_NAMES[name] : undefined;
}

/** The delimiter that splits the header line into the most known (quoted or bare) column names. */
function delimiterOf(head: string): string {
  const lines = head.replace(/^\uFEFF/, "").split(/\r\n|\n|\r/);
  const header = lines.find((line) => line.trim() !== "") ?? "";
  let best = DELIMITERS[0]!;
  let most = 0;
  for (const delimiter of DELIMITERS) {
    const names = header.split(delimiter).map((name) => name.trim().replace(/^"(.*)"$/, "$1"));
    const known = new Set(names.map(columnOf).filter((column) => column !== undefined)).size;
    if (known > most) {
      best = delimiter;
      most = known;
    }
  }
  return best;
}

/** The column of each field of the header; undefined for a column that is ignored. */
function columnsOf(
  header: string[],
  line: number,
  ignoreUnknown: boolean,
): Array<Column | undefined> {
  const columns: Array<Column | undefined> = [];
  const unknown: string[] = [];
  header.forEach((text, index) => {
    const column = columnOf(text);
    if (column === undefined) {
      const name = text.trim();
      unknown.push(name === "" ? `an unnamed column (${index + 1})` : JSON.stringify(name));
    } else if (columns.includes(column)) {
      throw new InputFormatError(`the CSV header names the ${column} column twice`, line);
    }
    columns.push(column);
  });
  if (unknown.length > 0 && !ignoreUnknown) {
    const which = unknown.length === 1 ? "an unknown column" : "unknown columns";
    throw new InputFormatError(
      `the CSV header has ${which} ${unknown.join(", ")}; ${COLUMNS_HELP}; --ignore-unknown-columns ignores ${unknown.length === 1 ? "it" : "them"}`,
      line,
    );
  }
  for (const required of ["name", "categoryId"] as const) {
    if (!columns.includes(required)) {
      throw new InputFormatError(`the CSV header has no ${required} column; ${COLUMNS_HELP}`, line);
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

export async function* parseCsv(
  chunks: AsyncIterable<string>,
  options: ParseOptions = {},
): AsyncGenerator<InputRecord> {
  /** The line the next record starts on; counted as csv-parse reads, so an error can name it. */
  let line = 1;
  const csvOptions: Options<unknown, unknown> = {
    delimiter: delimiterOf(options.head ?? ""),
    record_delimiter: ["\r\n", "\n", "\r"],
    relax_column_count: true,
    max_record_size: MAX_RECORD_CHARS,
    // Each record's text, to count the lines it spans (csv-parse counts a CRLF inside quotes twice).
    raw: true,
    on_record: (read) => {
      const { raw, record } = read as { raw: string; record: string[] };
      const start = line;
      line += raw.match(/\r\n|\r|\n/g)?.length ?? 0;
      return { record, start } satisfies Read;
    },
  };
  const parser = parse(csvOptions as Options);
  pipeline(chunks, parser, () => {});
  let columns: Array<Column | undefined> | undefined;
  let row = 0;
  try {
    for await (const { record, start } of parser as AsyncIterable<Read>) {
      if (record.every((cell) => cell.trim() === "")) continue;
      if (columns === undefined) {
        columns = columnsOf(record, start, options.ignoreUnknownColumns === true);
        continue;
      }
      row++;
      if (record.length !== columns.length) {
        const fields = `${record.length} field${record.length === 1 ? "" : "s"}`;
        yield { row, line: start, unreadable: `has ${fields}; the header has ${columns.length}` };
        continue;
      }
      const value: Record<string, unknown> = {};
      columns.forEach((column, index) => {
        const text = record[index]!;
        if (column !== undefined && text !== "") value[column] = cellValue(column, text);
      });
      yield { row, line: start, value };
    }
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    throw new InputFormatError(ERRORS[error.code] ?? error.message, line);
  }
}
