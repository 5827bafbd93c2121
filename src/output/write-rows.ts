/**
 * Writes rows in the chosen rendering. JSON is the service's text when there is
 * one (`raw`: pets), else the rows as `toJson` makes them (profiles, whose machine
 * field names it decides); indented for a person on a terminal, and C1 and
 * bidirectional controls escaped either way (escapeJsonControls). Only the table
 * loads cli-table3.
 */
import type { IO, OutputStream } from "../io.js";
import { parseJson, stringifyJson } from "../schema/json.js";
import { renderCsv, renderTsv, type Column } from "./columns.js";
import type { OutputFormat } from "./output-format.js";
import { loadPalette } from "./palette.js";
import { escapeJsonControls } from "./text-escape.js";

export interface RowsToWrite<Row> {
  rows: readonly Row[];
  columns: readonly Column<Row>[];
  /** The body as the service sent it, when the rows are its answer. */
  raw?: string;
  /** A row as JSON; the row itself when left out. */
  toJson?(row: Row): unknown;
}

/** One JSON document on stdout, as writeRows writes one (`auth status` and `profile show` too). */
export function writeJson(stdout: OutputStream, value: unknown): void {
  stdout.write(escapeJsonControls(stringifyJson(value, stdout.isTTY ? 2 : 0)) + "\n");
}

export async function writeRows<Row>(
  io: IO,
  data: RowsToWrite<Row>,
  format: OutputFormat,
): Promise<void> {
  const { rows, columns, raw, toJson = (row: Row) => row } = data;
  const { stdout } = io;
  switch (format) {
    case "json": {
      if (raw === undefined) return writeJson(stdout, rows.map(toJson));
      const text = stdout.isTTY ? stringifyJson(parseJson(raw), 2) : raw.trim();
      stdout.write(escapeJsonControls(text) + "\n");
      return;
    }
    case "ndjson":
      stdout.write(
        escapeJsonControls(rows.map((row) => stringifyJson(toJson(row)) + "\n").join("")),
      );
      return;
    case "tsv":
      stdout.write(renderTsv(rows, columns));
      return;
    case "csv":
      stdout.write(renderCsv(rows, columns));
      return;
    case "table": {
      const { renderTable } = await import("./table.js");
      const palette = await loadPalette(io, "stdout");
      stdout.write(await renderTable(rows, columns, { palette, width: stdout.columns }));
      return;
    }
  }
}
