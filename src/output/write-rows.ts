/**
 * Writes rows in the chosen rendering: `writeRows` for rows that are not pets
 * (profiles), whose JSON is built from `toJson`, which decides the machine field
 * names; `writeColumns`, the text renderings of any rows, pets included.
 */
import type { IO } from "../io.js";
import { stringifyJson } from "../schema/json.js";
import type { Column } from "./columns.js";
import { renderCsv } from "./csv.js";
import type { OutputFormat } from "./output-format.js";
import { escapeJsonControls } from "./text-escape.js";
import { renderTsv } from "./tsv.js";

export interface RowsToWrite<Row> {
  rows: readonly Row[];
  columns: readonly Column<Row>[];
  toJson(row: Row): Record<string, unknown>;
}

export async function writeRows<Row>(
  io: IO,
  data: RowsToWrite<Row>,
  format: OutputFormat,
): Promise<void> {
  const { rows, columns, toJson } = data;
  switch (format) {
    case "json":
      io.stdout.write(
        escapeJsonControls(stringifyJson(rows.map(toJson), io.stdout.isTTY ? 2 : 0)) + "\n",
      );
      return;
    case "ndjson":
      io.stdout.write(
        escapeJsonControls(rows.map((row) => stringifyJson(toJson(row)) + "\n").join("")),
      );
      return;
    default:
      return writeColumns(io, rows, columns, format);
  }
}

/** Rows as columns of text: tab-separated, CSV, or a table (which alone loads chalk and cli-table3). */
export async function writeColumns<Row>(
  io: IO,
  rows: readonly Row[],
  columns: readonly Column<Row>[],
  format: "tsv" | "csv" | "table",
): Promise<void> {
  switch (format) {
    case "tsv":
      io.stdout.write(renderTsv(rows, columns));
      return;
    case "csv":
      io.stdout.write(renderCsv(rows, columns));
      return;
    case "table": {
      const [{ renderTable }, { loadPalette }] = await Promise.all([
        import("./table.js"),
        import("./palette.js"),
      ]);
      const palette = await loadPalette(io, "stdout");
      io.stdout.write(await renderTable(rows, columns, { palette, width: io.stdout.columns }));
      return;
    }
  }
}
