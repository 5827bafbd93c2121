/** Types of node-runtimes.mjs, for the tests that import it. */
import type { BinaryTarget } from "./binary-targets.mjs";

export function runtimeDir(root: string, name: string, version: string): string;
export function fetchRuntime(root: string, name: string, version: string): Promise<string>;
export function targetNode(root: string, target: BinaryTarget): Promise<string>;
