/**
 * The OpenAPI 3.1 document of the service as the fake serves it: `openapi.json`,
 * bundled as it is, with the given servers first (the fake puts its own URL there,
 * so "try it" and generated clients reach it), then production and staging. The
 * file is generated from the zod schemas (scripts/openapi/, `npm run openapi`), and
 * test/schema/openapi.test.ts fails while it is not current: one document, made
 * once, not again in every `serve`.
 */
import document from "../../openapi.json" with { type: "json" };

export interface ServerEntry {
  url: string;
  description: string;
}

export function openApiText(servers: readonly ServerEntry[] = []): string {
  const served = { ...document, servers: [...servers, ...document.servers] };
  return JSON.stringify(served, null, 2) + "\n";
}
