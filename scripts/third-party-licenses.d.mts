/** Types of third-party-licenses.mjs, for the tests that import it. */
export interface Metafile {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
}

export interface LicenceFile {
  name: string;
  text: string;
}

export interface BundledPackage {
  name: string;
  version: string;
  license: string;
  dir: string;
  files: LicenceFile[];
}

export function mergeMetafiles(metafiles: Metafile[]): Metafile;
export function readPackage(
  dir: string,
  label?: string,
  expectedName?: string,
  extraFiles?: string[],
): Promise<BundledPackage>;
export function bundledPackages(root: string, metafile: Metafile): Promise<BundledPackage[]>;
export interface CopiedPackage {
  name: string;
  licenceFiles?: string[];
}
export function copiedPackages(root: string, copied: CopiedPackage[]): Promise<BundledPackage[]>;
export function allPackages(...lists: BundledPackage[][]): BundledPackage[];
export function renderLicences(packages: BundledPackage[], heading: string): string;
export function writeThirdPartyLicenses(options: {
  root: string;
  metafile: Metafile;
  file: string;
  heading: string;
  first?: BundledPackage[];
  copied?: CopiedPackage[];
}): Promise<BundledPackage[]>;
