/** Types of home-assets.mjs, for the tests that import it. */
export interface CopiedPackageFiles {
  name: string;
  files: string[];
  licenceFiles: string[];
}

export const COPIED_PACKAGES: CopiedPackageFiles[];

export function copyHomeAssets(options: { root: string; outdir: string }): Promise<void>;
