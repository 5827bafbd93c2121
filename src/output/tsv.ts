import type { Column } from "./columns.js";
import { tsvField } from "./text-escape.js";

/** One line per row, fields separated by tabs, no header, nothing truncated or coloured. */
export function renderTsv<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  let text = "";
  for (const row of rows) {
    text += columns.map((column) => tsvField(column.value(row))).join("\t") + "\n";
  }
  return text;
}
