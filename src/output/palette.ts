/**
 * The few styles the CLI uses, written by Node's own `util.styleText` (the codes
 * chalk wrote, with no package to load). Whether a stream gets colour is our own
 * per-stream decision (io.ts), so Node's check of stdout (`validateStream`, Node
 * 22 and later) is turned off.
 */
import { styleText } from "node:util";
import type { IO, StreamName } from "../io.js";

export type Style = "bold" | "dim" | "red" | "green" | "yellow";
export type Palette = Record<Style, (text: string) => string>;

const plain = (text: string) => text;
export const PLAIN_PALETTE: Palette = {
  bold: plain,
  dim: plain,
  red: plain,
  green: plain,
  yellow: plain,
};

const styled =
  (style: Style) =>
  (text: string): string =>
    styleText(style, text, { validateStream: false });
const COLOURED: Palette = {
  bold: styled("bold"),
  dim: styled("dim"),
  red: styled("red"),
  green: styled("green"),
  yellow: styled("yellow"),
};

export function paletteFor(io: IO, stream: StreamName): Palette {
  return io.colorEnabled(stream) ? COLOURED : PLAIN_PALETTE;
}
