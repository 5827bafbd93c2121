// Writes the README's exit-code table from EXIT_MEANINGS (src/errors.ts), the
// table `petstore --help` prints too. test/readme/tables.test.ts checks it is current.
import { build } from "esbuild";
import { readFile, writeFile } from "node:fs/promises";
import prettier from "prettier";

const root = new URL("..", import.meta.url);
const START = "<!-- exit-codes:start -->";
const END = "<!-- exit-codes:end -->";

const result = await build({
  absWorkingDir: root.pathname,
  entryPoints: ["src/errors.ts"],
  bundle: true,
  format: "esm",
  platform: "node",
  write: false,
  logLevel: "warning",
});
const { EXIT_MEANINGS } = await import(
  "data:text/javascript;base64," + Buffer.from(result.outputFiles[0].text).toString("base64")
);
const rows = Object.entries(EXIT_MEANINGS).map(([code, meaning]) => `| ${code} | ${meaning} |`);
const table = ["| code | meaning |", "| --- | --- |", ...rows].join("\n");

const readmeUrl = new URL("README.md", root);
const readme = await readFile(readmeUrl, "utf8");
const [before, rest] = readme.split(START);
if (rest === undefined || !rest.includes(END))
  throw new Error(`README.md has no ${START} ... ${END}`);
const after = rest.slice(rest.indexOf(END));
const next = `${before}${START}\n\n${table}\n\n${after}`;
const options = (await prettier.resolveConfig(readmeUrl.pathname)) ?? {};
await writeFile(readmeUrl, await prettier.format(next, { ...options, parser: "markdown" }));
