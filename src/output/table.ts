/**
 * The terminal rendering: aligned columns under a bold header, no borders (as the
 * GitHub CLI prints), status coloured, and shrinkable columns cut with an ellipsis
 * so a row fits the terminal's width. cli-table3 is loaded only here.
 */
import type { Column } from "./columns.js";
import type { Palette } from "./palette.js";
import { visibleText } from "./text-escape.js";

const GAP = "  ";
/** A shrinkable column keeps at least this many characters. */
const MIN_SHRUNK_WIDTH = 8;

const BORDERLESS = {
  top: "",
  "top-mid": "",
  "top-left": "",
  "top-right": "",
  bottom: "",
  "bottom-mid": "",
  "bottom-left": "",
  "bottom-right": "",
  left: "",
  "left-mid": "",
  mid: "",
  "mid-mid": "",
  right: "",
  "right-mid": "",
  middle: GAP,
};

export interface TableOptions {
  palette: Palette;
  /** Terminal width; undefined when unknown (then nothing is shortened). */
  width: number | undefined;
}

/** Column widths that fit `width`, narrowing shrinkable columns only (null: natural width). */
export function fitColumnWidths(
  natural: readonly number[],
  shrinkable: readonly boolean[],
  width: number | undefined,
): (number | null)[] {
  const total = natural.reduce((sum, w) => sum + w, 0) + GAP.length * (natural.length - 1);
  if (width === undefined || total <= width) return natural.map(() => null);
  let excess = total - width;
  return natural.map((w, i) => {
    if (!shrinkable[i] || excess <= 0) return null;
    const narrowed = Math.max(MIN_SHRUNK_WIDTH, w - excess);
    excess -= w - narrowed;
    return narrowed < w ? narrowed : null;
  });
}

export async function renderTable<Row>(
  rows: readonly Row[],
  columns: readonly Column<Row>[],
  options: TableOptions,
): Promise<string> {
  const { default: Table } = await import("cli-table3");
  const { palette } = options;
  const cells = rows.map((row) => columns.map((column) => visibleText(column.value(row))));
  const natural = columns.map((column, i) =>
    Math.max(column.label.length, ...cells.map((row) => [...row[i]!].length)),
  );
  const widths = fitColumnWidths(
    natural,
    columns.map((column) => column.shrinkable === true),
    options.width,
  );
  const table = new Table({
    head: columns.map((column) => palette.bold(column.label)),
    chars: BORDERLESS,
    style: { head: [], border: [], "padding-left": 0, "padding-right": 0 },
    colWidths: widths,
    wordWrap: false,
  });
  for (const row of cells) {
    table.push(row.map((text, i) => columns[i]!.style?.(text, palette) ?? text));
  }
  return (
    table
      .toString()
      .split("\n")
      .map((line) => line.replace(/ +$/, ""))
      .join("\n") + "\n"
  );
}
