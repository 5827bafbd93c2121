/** Types of build-image.mjs, for the tests that import it. */
export interface ImageTarget {
  target: string;
  arch: "amd64" | "arm64";
  variant?: string;
  output: string;
  sysroot: string;
  list: string[];
}

export const IMAGE_NAME: string;
export const DATA_DIR: string;
export const IMAGES: [ImageTarget, ImageTarget];
