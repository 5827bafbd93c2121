import type { Column } from "./columns.js";
import { csvField } from "./text-escape.js";

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
