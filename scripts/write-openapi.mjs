// Writes openapi.json and admin-openapi.json from the zod schemas (scripts/openapi/).
import { build } from "esbuild";
import { writeFile } from "node:fs/promises";

const root = new URL("..", import.meta.url);
for (const [entry, file] of [
  ["scripts/openapi/document.ts", "openapi.json"],
  ["scripts/openapi/admin.ts", "admin-openapi.json"],
]) {
  const result = await build({
    absWorkingDir: root.pathname,
    entryPoints: [entry],
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
  await writeFile(new URL(file, root), module.openApiText());
}
