/**
 * Which parser reads an input: `--format` when given, else the file's extension,
 * else its first non-blank character (`[` a JSON array, `{` NDJSON, anything
 * else CSV). A `.json` file may hold either JSON form, so its content decides.
 */
import { extname } from "node:path";

export const INPUT_FORMATS = ["csv", "ndjson", "json"] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

const BY_EXTENSION: Record<string, InputFormat> = {
  ".csv": "csv",
  ".ndjson": "ndjson",
  ".jsonl": "ndjson",
};

export function isInputFormat(text: string): text is InputFormat {
  return (INPUT_FORMATS as readonly string[]).includes(text);
}

/** `head`: the first characters of the input (a few kilobytes are plenty). */
export function detectFormat(path: string | undefined, head: string): InputFormat {
  const byExtension = path === undefined ? undefined : BY_EXTENSION[extname(path).toLowerCase()];
  if (byExtension !== undefined) return byExtension;
  const first = /[^\s\uFEFF]/.exec(head)?.[0];
  if (first === "[") return "json";
  if (first === "{") return "ndjson";
  return "csv";
}
