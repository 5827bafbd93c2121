/** Inlined by the build (esbuild `define`, from package.json); in-source runs say so. */
declare const PETSTORE_VERSION: string;

export const VERSION = typeof PETSTORE_VERSION === "string" ? PETSTORE_VERSION : "0.0.0-dev";
