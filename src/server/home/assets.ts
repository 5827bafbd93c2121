/**
 * The home page's static files (its own script and styles, Pico's stylesheet and
 * Swagger UI), as the build copies them into dist/home/. The standalone binary carries them as Node
 * SEA assets (`home/<name>`); anywhere else they are read from the dist/home/
 * directory of this package, found from this module's own location (dist/,
 * dist/chunks/, or src/server/home/ when the sources run under a test runner).
 * Each file is read once, on first use, and kept with its ETag and, for clients
 * that accept it, a gzip copy made on first request.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { getAsset, isSea } from "node:sea";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/** Every file the page loads, by name under /__home/, with its media type. */
export const HOME_ASSETS: Readonly<Record<string, string>> = {
  "home.js": "text/javascript; charset=utf-8",
  "home.css": "text/css; charset=utf-8",
  "pico.conditional.jade.min.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-bundle.js.LICENSE.txt": "text/plain; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
};

export interface Asset {
  type: string;
  bytes: Buffer;
  etag: string;
  /** The gzip copy, made on first request by a client that accepts it. */
  gzipped(): Buffer;
}

/**
 * The directory of a file beside which dist/home/ is looked for, from up to five
 * levels up. It is known by a file only the build puts there (src/server/home/
 * holds the page's own files too).
 */
export function findAssetDirectory(from: string): string | undefined {
  let dir = from;
  for (let level = 0; level < 5; level++) {
    for (const candidate of [join(dir, "home"), join(dir, "dist", "home")]) {
      if (existsSync(join(candidate, "swagger-ui-bundle.js"))) return candidate;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

export type AssetReader = (name: string) => Buffer;

function defaultReader(): AssetReader {
  if (isSea()) return (name) => Buffer.from(getAsset(`home/${name}`));
  const directory = findAssetDirectory(dirname(fileURLToPath(import.meta.url)));
  if (directory === undefined) {
    // No error code: the route answers with this message as it is.
    throw new Error(
      "the home page's files (dist/home/) are missing from this installation; `npm run build` makes them",
    );
  }
  return (name) => readFileSync(join(directory, name));
}

/** Assets by name, read on first use; `read` replaces where they come from (tests). */
export function createAssetStore(read?: AssetReader): (name: string) => Asset | undefined {
  const loaded = new Map<string, Asset>();
  let reader = read;
  return (name) => {
    if (!Object.hasOwn(HOME_ASSETS, name)) return undefined;
    let asset = loaded.get(name);
    if (asset === undefined) {
      reader ??= defaultReader();
      const bytes = reader(name);
      let gzipped: Buffer | undefined;
      asset = {
        type: HOME_ASSETS[name]!,
        bytes,
        etag: `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 27)}"`,
        gzipped: () => (gzipped ??= gzipSync(bytes)),
      };
      loaded.set(name, asset);
    }
    return asset;
  };
}
