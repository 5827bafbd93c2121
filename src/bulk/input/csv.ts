/**
 * CSV as spreadsheets export it. The header names the columns: `name`,
 * `categoryId` (or `category_id`) and optionally `status`, in any order and any
 * letter case; other columns are refused, or ignored with --ignore-unknown-columns.
 * An empty cell is a field left out (the schema then says whether it was required);
 * a row of empty cells is skipped like a blank line; a row with more or fewer
 * cells than the header is invalid.
 *
 * The delimiter is `,`, `;` (Excel where the decimal mark is a comma) or a tab,
 * whichever splits the header line into the most known column names; a tie goes
 * to the comma, then `;`. The header line is the first line that is not blank,
 * up to a line break outside double quotes.
 */
import { rawRecords, type RawRecord } from "./csv-records.js";
import {
  InputFormatError,
  MAX_RECORD_CHARS,
  type InputRecord,
  type ParseOptions,
} from "./input-record.js";

type Column = "name" | "categoryId" | "status";

const COLUMN_NAMES: Record<string, Column> = {
  name: "name",
  categoryid: "categoryId",
  category_id: "categoryId",
  status: "status",
};

const COLUMNS_HELP = "the columns are name, categoryId (or category_id) and status";

/** In the order a tie goes. */
const DELIMITERS = [",", ";", "\t"];

function columnOf(text: string): Column | undefined {
  const name = text.trim().toLowerCase();
  return Object.hasOwn(COLUMN_NAMES, name) ? COLUMN_NAMES[name] : undefined;
}

/** The first record that is not blank: the header. */
function firstRecord(chunks: Iterable<string>, delimiter: string): RawRecord | undefined {
  for (const record of rawRecords(chunks, delimiter)) if (!isBlank(record)) return record;
  return undefined;
}

/** The delimiter that splits the header into the most known columns (the chunks hold it whole). */
function delimiterOf(chunks: string[]): string {
  let best = DELIMITERS[0]!;
  let most = -1;
  for (const delimiter of DELIMITERS) {
    let fields: string[];
    try {
      fields = firstRecord(chunks, delimiter)?.fields ?? [];
    } catch {
      continue; // not a record with this delimiter (a quote left open)
    }
    const known = new Set(fields.map(columnOf).filter((column) => column !== undefined)).size;
    if (known > most) {
      best = delimiter;
      most = known;
    }
  }
  return best;
}

function* replay(read: string[], rest: Iterator<string>): Generator<string> {
  yield* read;
  for (let next = rest.next(); !next.done; next = rest.next()) yield next.value;
}

/** A blank line, or a row of empty cells (spreadsheets write those below the data). */
function isBlank(record: RawRecord): boolean {
  return record.fields.every((field) => field.trim() === "");
}

/** The column of each field of the header; undefined for a column that is ignored. */
function columnsOf(header: RawRecord, ignoreUnknown: boolean): Array<Column | undefined> {
  const columns: Array<Column | undefined> = [];
  const unknown: string[] = [];
  header.fields.forEach((text, index) => {
    const column = columnOf(text);
    if (column === undefined) {
      const name = text.trim();
      unknown.push(name === "" ? `an unnamed column (${index + 1})` : JSON.stringify(name));
    } else if (columns.includes(column)) {
      throw new InputFormatError(`the CSV header names the ${column} column twice`, header.line);
    }
    columns.push(column);
  });
  if (unknown.length > 0 && !ignoreUnknown) {
    const which = unknown.length === 1 ? "an unknown column" : "unknown columns";
    throw new InputFormatError(
      `the CSV header has ${which} ${unknown.join(", ")}; ${COLUMNS_HELP}; --ignore-unknown-columns ignores ${unknown.length === 1 ? "it" : "them"}`,
      header.line,
    );
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

function fieldsText(count: number): string {
  return `${count} field${count === 1 ? "" : "s"}`;
}

export function* parseCsv(
  chunks: Iterable<string>,
  options: ParseOptions = {},
): Generator<InputRecord> {
  const source = chunks[Symbol.iterator]();
  try {
    // Read until the header is whole (its line ends the same for every delimiter), or
    // enough was read for one (a header so far down goes to the comma). What is wrong
    // with the text is found by the reading proper; what is wrong with the input, now.
    const read: string[] = [];
    let chars = 0;
    let failed: { error: unknown } | undefined;
    function* recorded(): Generator<string> {
      while (chars <= MAX_RECORD_CHARS) {
        let next: IteratorResult<string>;
        try {
          next = source.next();
        } catch (error) {
          failed = { error };
          throw error;
        }
        if (next.done === true) return;
        read.push(next.value);
        chars += next.value.length;
        yield next.value;
      }
    }
    try {
      firstRecord(recorded(), ",");
    } catch (error) {
      if (failed !== undefined) throw error;
    }
    let columns: Array<Column | undefined> | undefined;
    let row = 0;
    for (const record of rawRecords(replay(read, source), delimiterOf(read))) {
      if (isBlank(record)) continue;
      if (columns === undefined) {
        columns = columnsOf(record, options.ignoreUnknownColumns === true);
        continue;
      }
      row++;
      if (record.fields.length !== columns.length) {
        yield {
          row,
          line: record.line,
          unreadable: `has ${fieldsText(record.fields.length)}; the header has ${columns.length}`,
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
        const text = record.fields[index]!;
        if (column !== undefined && text !== "") value[column] = cellValue(column, text);
      });
      yield { row, line: record.line, value };
    }
  } finally {
    source.return?.();
  }
}
