import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../server/cli-build.js";

const serveDoc = readFileSync(join(REPO_ROOT, "docs", "serve.md"), "utf8").replace(/\s+/g, " ");
const home = (name: string) => join(REPO_ROOT, "dist", "home", name);
const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(2)} MB`;

describe("docs/serve.md, the home page", () => {
  it("gives the reference library's size as built", () => {
    const bundle = statSync(home("swagger-ui-bundle.js")).size;
    const css = statSync(home("swagger-ui.css")).size;
    const gzipped =
      gzipSync(readFileSync(home("swagger-ui-bundle.js"))).length +
      gzipSync(readFileSync(home("swagger-ui.css"))).length;
    expect(serveDoc).toContain(
      `${megabytes(bundle + css)} (\`swagger-ui-bundle.js\` ${megabytes(bundle)}, ` +
        `\`swagger-ui.css\` ${megabytes(css)}), ${megabytes(gzipped)} gzipped`,
    );
    const own = statSync(home("home.js")).size + statSync(home("home.css")).size;
    const pico = statSync(home("pico.conditional.jade.min.css")).size;
    expect(serveDoc).toContain(
      `own script and styles add ${Math.round(own / 1000)} kB, and its stylesheet ` +
        `(\`@picocss/pico\`) ${Math.round(pico / 1000)} kB`,
    );
  });
});
