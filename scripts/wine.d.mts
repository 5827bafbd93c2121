/** Types of wine.mjs, for the tests that import it. */
import type { ChildProcess } from "node:child_process";

/** The environment that selects a prefix: WINEPREFIX, WINEARCH, WINEDEBUG and its HOME. */
export type PrefixEnv = Record<"WINEPREFIX" | "WINEARCH" | "WINEDEBUG" | "HOME", string>;

export interface WineRun {
  cwd?: string;
  env: NodeJS.ProcessEnv;
  prefixEnv: PrefixEnv;
  scratch: string;
  input?: string;
}

export interface WineExit {
  /** The Windows exit code; null when the wine process died of a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export const WINE: string;
export function wineMissing(): string | undefined;
export function winePrefix(dir: string): Promise<PrefixEnv>;
export function userProfile(prefixEnv: PrefixEnv): string;
export function waitForWineServer(
  prefixEnv: PrefixEnv,
  options?: { kill?: boolean },
): Promise<void>;
export function windowsPath(path: string): string;
export function runWine(
  program: string,
  args: string[],
  options: WineRun & { timeout?: number },
): { status: number | null; stdout: string; stderr: string };
export function spawnWine(
  program: string,
  args: string[],
  options: WineRun,
): { child: ChildProcess; stdout(): string; stderr(): string; exited: Promise<WineExit> };
