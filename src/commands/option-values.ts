/** Typed reads of parsed flags (from commander or the fast parser: the same shape). */
import type { OutputFlags } from "../output/output-format.js";
import type { OptionValues } from "./fast-parse.js";

export function stringOption(values: OptionValues, key: string): string | undefined {
  const value = values[key];
  return typeof value === "string" ? value : undefined;
}

export function booleanOption(values: OptionValues, key: string): boolean {
  return values[key] === true;
}

export function outputFlags(values: OptionValues): OutputFlags {
  const flags: OutputFlags = {
    json: booleanOption(values, "json"),
    quiet: booleanOption(values, "quiet"),
  };
  const output = stringOption(values, "output");
  if (output !== undefined) flags.output = output;
  return flags;
}
