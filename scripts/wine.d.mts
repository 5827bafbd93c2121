/** Types of wine.mjs, for the tests that import it. */
import type { ChildProcess } from "node:child_process";

export interface WineRun {
  cwd: string;
  env: NodeJS.ProcessEnv;
  prefixEnv: NodeJS.ProcessEnv;
  scratch: string;
}

export const WINE: string;
export function wineMissing(): string | undefined;
export function winePrefix(dir: string): NodeJS.ProcessEnv;
export function stopWineServer(prefixEnv: NodeJS.ProcessEnv, options?: { kill?: boolean }): void;
export function windowsPath(path: string): string;
export function runWine(
  program: string,
  args: string[],
  options: WineRun & { input?: string; timeout?: number },
): { status: number | null; stdout: string; stderr: string };
export function spawnWine(
  program: string,
  args: string[],
  options: WineRun,
): { child: ChildProcess; stdout(): string; stderr(): string; cleanUp(): void };
