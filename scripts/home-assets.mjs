// The home page's files, in <outdir>/home/ (dist/home/ once the build is in place):
// - home.js and home.css: the page's own script and styles (src/server/home/browser/),
//   bundled by esbuild for browsers;
// - the API reference library, copied as its maintainers publish it (COPIED_PACKAGES).
// The server serves exactly these names (HOME_ASSETS in src/server/home/assets.ts);
// the standalone binary carries them as SEA assets (scripts/build-binary.mjs).
import { build } from "esbuild";
import { copyFile, mkdir } from "node:fs/promises";
import { join } from "node:path";

/**
 * Packages whose files are shipped as they are, not through a bundle, so esbuild's
 * metafile does not see them: THIRD_PARTY_LICENSES lists them from here, with
 * their LICENSE and NOTICE and the `licenceFiles` (a bundle's extracted notices).
 */
export const COPIED_PACKAGES = [
  {
    name: "swagger-ui-dist",
    files: ["swagger-ui-bundle.js", "swagger-ui.css", "swagger-ui-bundle.js.LICENSE.txt"],
    licenceFiles: ["swagger-ui-bundle.js.LICENSE.txt"],
  },
];

/** Builds and copies the files into `${outdir}/home/`; returns esbuild's metafile of the script. */
export async function buildHomeAssets({ root, outdir, minify }) {
  const home = join(outdir, "home");
  await mkdir(home, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: [
      { in: "src/server/home/browser/main.ts", out: "home" },
      { in: "src/server/home/browser/home.css", out: "home" },
    ],
    outdir: home,
    bundle: true,
    platform: "browser",
    format: "iife",
    target: ["chrome109", "firefox115", "safari16"],
    minify,
    legalComments: "none",
    logLevel: "warning",
    metafile: true,
  });
  for (const { name, files } of COPIED_PACKAGES) {
    for (const file of files) {
      await copyFile(join(root, "node_modules", name, file), join(home, file));
    }
  }
  return result.metafile;
}
