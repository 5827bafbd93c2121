/**
 * The few styles the CLI uses. chalk is imported only when the stream actually
 * gets colour, so piped output and `--no-color` never pay for loading it; and its
 * level is set from our own per-stream decision (io.ts), not chalk's detection,
 * which looks at stdout only.
 */
import type { IO, StreamName } from "../io.js";

const STYLES = ["bold", "dim", "red", "green", "yellow"] as const;
export type Style = (typeof STYLES)[number];
export type Palette = Record<Style, (text: string) => string>;

function palette(paint: (style: Style, text: string) => string): Palette {
  return Object.fromEntries(
    STYLES.map((style) => [style, (text: string) => paint(style, text)]),
  ) as Palette;
}

export const PLAIN_PALETTE = palette((_style, text) => text);

export async function loadPalette(io: IO, stream: StreamName): Promise<Palette> {
  if (!io.colorEnabled(stream)) return PLAIN_PALETTE;
  const { Chalk } = await import("chalk");
  const chalk = new Chalk({ level: 1 });
  return palette((style, text) => chalk[style](text));
}
