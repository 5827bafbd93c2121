// The home page's files, in <outdir>/home/ (dist/home/ once the build is in place),
// all copied as they are, with no build step:
// - home.js and home.css: the page's own script and styles (src/server/home/);
// - the stylesheet and the API reference library, as their maintainers publish them
//   (COPIED_PACKAGES).
// The server serves exactly these names (HOME_ASSETS in src/server/home/assets.ts);
// the standalone binary carries them as SEA assets (scripts/build-binary.mjs).
import { copyFile, mkdir } from "node:fs/promises";
import { basename, join } from "node:path";

const OWN_FILES = ["home.js", "home.css"];

/**
 * Packages whose files are shipped as they are, not through a bundle, so esbuild's
 * metafile does not see them: THIRD_PARTY_LICENSES lists them from here, with
 * their LICENSE and NOTICE and the `licenceFiles` (a bundle's extracted notices).
 * Each file keeps its name, without its folder, in dist/home/.
 */
export const COPIED_PACKAGES = [
  {
    name: "swagger-ui-dist",
    files: ["swagger-ui-bundle.js", "swagger-ui.css", "swagger-ui-bundle.js.LICENSE.txt"],
    licenceFiles: ["swagger-ui-bundle.js.LICENSE.txt"],
  },
  {
    // Only inside elements of class "pico" (the conditional build): Swagger UI keeps its own look.
    name: "@picocss/pico",
    files: ["css/pico.conditional.jade.min.css"],
    licenceFiles: [],
  },
];

/** Copies the files into `${outdir}/home/`. */
export async function copyHomeAssets({ root, outdir }) {
  const home = join(outdir, "home");
  await mkdir(home, { recursive: true });
  for (const file of OWN_FILES) {
    await copyFile(join(root, "src", "server", "home", file), join(home, file));
  }
  for (const { name, files } of COPIED_PACKAGES) {
    for (const file of files) {
      await copyFile(join(root, "node_modules", name, file), join(home, basename(file)));
    }
  }
}
