/**
 * The few styles the CLI uses. chalk is imported only when the stream actually
 * gets colour, so piped output and `--no-color` never pay for loading it; and its
 * level is set from our own per-stream decision (io.ts), not chalk's detection,
 * which looks at stdout only.
 */
import type { IO, StreamName } from "../io.js";

export interface Palette {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

const plain = (text: string) => text;

export const PLAIN_PALETTE: Palette = {
  enabled: false,
  bold: plain,
  dim: plain,
  red: plain,
  green: plain,
  yellow: plain,
};

export async function loadPalette(io: IO, stream: StreamName): Promise<Palette> {
  if (!io.colorEnabled(stream)) return PLAIN_PALETTE;
  const { Chalk } = await import("chalk");
  const chalk = new Chalk({ level: 1 });
  return {
    enabled: true,
    bold: (text) => chalk.bold(text),
    dim: (text) => chalk.dim(text),
    red: (text) => chalk.red(text),
    green: (text) => chalk.green(text),
    yellow: (text) => chalk.yellow(text),
  };
}
