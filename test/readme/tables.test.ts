import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EXIT, EXIT_MEANINGS } from "../../src/errors.js";
import { ERROR_CODES } from "../../src/schema/error-codes.js";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const serveReference = readFileSync(new URL("../../docs/serve.md", import.meta.url), "utf8");

function tableRows(heading: string, text = readme): string[][] {
  const section = text.split(heading)[1];
  if (!section) throw new Error(`no section ${heading}`);
  const rows: string[][] = [];
  for (const line of section.split("\n").slice(1)) {
    if (line.startsWith("#")) break;
    if (!line.startsWith("|") || line.startsWith("| ---")) continue;
    rows.push(
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows.slice(1);
}

describe("README", () => {
  it("lists every error code of the fake with its status, and no other (docs/serve.md)", () => {
    const rows = tableRows("## Error codes of the fake", serveReference);
    const documented = Object.fromEntries(
      rows.map(([code, status]) => [code!.replaceAll("`", ""), Number(status)]),
    );
    const actual = Object.fromEntries(
      Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status]),
    );
    expect(documented).toEqual(actual);
  });

  it("lists every exit code of the CLI with its meaning (npm run docs writes it)", () => {
    const rows = tableRows("## Exit codes");
    expect(Object.fromEntries(rows.map(([code, meaning]) => [code, meaning]))).toEqual(
      Object.fromEntries(Object.entries(EXIT_MEANINGS)),
    );
    expect(Object.keys(EXIT_MEANINGS).map(Number).sort()).toEqual(Object.values(EXIT).sort());
  });

  it("opens with exactly the two set-up commands", () => {
    const firstBlock = readme.split("```sh\n")[1]!.split("```")[0]!;
    expect(firstBlock.trim().split("\n")).toEqual(["npm ci && npm run demo", "npm ci && npm test"]);
  });
});
