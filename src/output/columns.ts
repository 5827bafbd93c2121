/**
 * Tabular data as the renderers see it: rows of any shape, and columns that say
 * how to show each. One description serves the table, TSV and CSV renderings;
 * the last two are here.
 */
import type { Palette } from "./palette.js";
import { csvField, tsvField } from "./text-escape.js";

export interface Column<Row> {
  /** Header of a CSV file, and the machine name of the field. */
  key: string;
  /** Header of a terminal table. */
  label: string;
  value(row: Row): string;
  /** Styling on a coloured terminal. */
  style?(value: string, palette: Palette): string;
  /** Shortened first, with an ellipsis, when a table is wider than the terminal. */
  shrinkable?: boolean;
  /** An int64 in decimal: a number in CSV, never neutralised as a formula (-5 stays -5). */
  integer?: boolean;
}

/** One line per row, fields separated by tabs, no header, nothing truncated or coloured. */
export function renderTsv<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  let text = "";
  for (const row of rows) {
    text += columns.map((column) => tsvField(column.value(row))).join("\t") + "\n";
  }
  return text;
}

/**
 * RFC 4180: a header line of field names, then one line per row, CRLF line ends.
 * Cells are escaped and neutralised by `csvField`; integer columns stay numbers.
 */
export function renderCsv<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const lines = [columns.map((column) => csvField(column.key)).join(",")];
  for (const row of rows) {
    lines.push(
      columns.map((column) => csvField(column.value(row), { integer: column.integer })).join(","),
    );
  }
  return lines.join("\r\n") + "\r\n";
}
