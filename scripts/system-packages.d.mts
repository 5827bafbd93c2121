/** Types of system-packages.mjs, for the test that imports it. */
export interface SystemPackage {
  /** A file that shows the package is installed. */
  file: string;
  /** The Debian package that brings it. */
  pkg: string;
  /** Which tests need it. */
  for: string;
}

export const SYSTEM_PACKAGES: SystemPackage[];
export function missingPackages(): SystemPackage[];
