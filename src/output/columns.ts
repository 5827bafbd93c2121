/**
 * Tabular data as the renderers see it: rows of any shape, and columns that say
 * how to show each. One description serves the table, TSV and CSV renderers.
 */
import type { Palette } from "./palette.js";

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
