/**
 * The few styles the CLI uses, written by Node's own `util.styleText` (the codes
 * chalk wrote, with no package to load). Whether a stream gets colour is our own
 * per-stream decision (io.ts), so Node's check of stdout (`validateStream`, Node
 * 22 and later) is turned off.
 */
import { styleText } from "node:util";
import type { IO, StreamName } from "../io.js";

const STYLES = ["bold", "dim", "red", "green", "yellow"] as const;
export type Style = (typeof STYLES)[number];
export type Palette = Record<Style, (text: string) => string>;

function palette(coloured: boolean): Palette {
  const paint = (style: Style) => (text: string) =>
    coloured ? styleText(style, text, { validateStream: false }) : text;
  return Object.fromEntries(STYLES.map((style) => [style, paint(style)])) as Palette;
}

export const PLAIN_PALETTE = palette(false);
const COLOURED = palette(true);

export function paletteFor(io: IO, stream: StreamName): Palette {
  return io.colorEnabled(stream) ? COLOURED : PLAIN_PALETTE;
}
