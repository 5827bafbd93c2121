// Writes openapi.json from the zod schemas (scripts/openapi/document.ts).
import { build } from "esbuild";
import { writeFile } from "node:fs/promises";

const root = new URL("..", import.meta.url);
const result = await build({
  absWorkingDir: root.pathname,
  entryPoints: ["scripts/openapi/document.ts"],
  bundle: true,
  format: "esm",
  platform: "node",
  write: false,
  logLevel: "warning",
});
const source = result.outputFiles[0].text;
const module = await import(
  "data:text/javascript;base64," + Buffer.from(source).toString("base64")
);
await writeFile(new URL("openapi.json", root), module.openApiText());
