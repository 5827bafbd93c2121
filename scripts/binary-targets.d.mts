/** Types of binary-targets.mjs, for the tests that import it. */
export interface BinaryTarget {
  name: string;
  runtime: string;
  node: string;
  executable: string;
  output: string;
  runner: "native" | "qemu" | "wine";
  licenceFrom?: string;
  keyring: string;
}

export const TARGETS: BinaryTarget[];
export const QEMU: string[];
export function cannotBuild(target: BinaryTarget): string | undefined;
export function lowestNodeMajor(): number;
