/**
 * Windows programs under wine (Debian's wine64, wine 8) for the tests: the npm
 * package under Node's `node.exe` (windows-package.test.ts) and the standalone
 * `petstore-win-x64.exe` (test/dist/binary.test.ts). Built on scripts/wine.mjs, the
 * harness the build uses too (prefix, stdio as files, Z:\ paths, wineserver), and on
 * scripts/node-runtimes.mjs for `node.exe`. What is wine's and what is Windows':
 * docs/serve.md, "On Windows".
 *
 * - `node.exe` is the Windows target's of scripts/binary-targets.mjs, at its version:
 *   the one runtime in `.cache/nodes/` that the binary is built on too.
 * - The prefix rule: each test file makes a prefix of its own in its temporary
 *   directory (`prepareWine(dir)`), and it goes with that directory. All a Windows
 *   program writes under its profile (the config in %APPDATA%, %TEMP%, the folders
 *   wine links to the prefix's HOME) stays inside the test's directory, and a test of
 *   the default config location sees the real %APPDATA%, empty at the start. The
 *   environment cannot move %APPDATA% (wine sets it from the prefix's registry), so a
 *   prefix kept across runs would take writes outside the test's directory. What a
 *   prefix per file costs, and why that is paid: docs/design.md, "Windows under wine".
 *   Only the build keeps its prefix (.cache/wine/build).
 * - Test files run in parallel processes: the first to need `node.exe` fetches it
 *   while the others wait on a lock (files/file-lock.ts).
 * - A run has a time limit, after which it is killed.
 * - `NO_KEEPALIVE_SHIM`: wine's gap in TCP keep-alive, for `add --from`.
 * - `installProcessPrng`: wine's missing bcryptprimitives.dll, for the keyring binding.
 *
 * Signals: `signal("SIGINT")` reaches the program as Ctrl-C; SIGTERM ends it with no
 * handler run, as a closed console or a service stop does on Windows.
 */
import { type ChildProcess, execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TARGETS } from "../../scripts/binary-targets.mjs";
import { targetNode } from "../../scripts/node-runtimes.mjs";
import {
  spawnWine,
  userProfile,
  waitForWineServer,
  wineMissing,
  winePrefix,
  type PrefixEnv,
  type WineExit,
} from "../../scripts/wine.mjs";
import { waitForFileLock } from "../../src/files/file-lock.js";
import { waitForOutput, type Started } from "../dist/run.js";
import { HANG_MS, HEAVY_HANG_MS } from "../limits.js";
import { REPO_ROOT } from "../server/cli-build.js";

export { windowsPath } from "../../scripts/wine.mjs";

/**
 * Preloaded by tests of `add --from` under wine (`--require`, or NODE_OPTIONS for the
 * binary): wine lacks the TCP keep-alive interval option undici sets (`connect
 * UNKNOWN`). Wine's gap, not Windows': never part of petstore.
 */
export const NO_KEEPALIVE_SHIM = fileURLToPath(
  new URL("fixtures/wine-no-keepalive.cjs", import.meta.url),
);

/**
 * Builds fixtures/process-prng.c with Debian's mingw into `dir` and puts it in the
 * prefix's system32 as bcryptprimitives.dll: wine 8 has none, and the keyring binding
 * does not load without its ProcessPrng. Wine's gap, not Windows': every Windows 10
 * and later has the DLL.
 */
export function installProcessPrng(wine: Wine, dir: string): void {
  const dll = join(dir, "bcryptprimitives.dll");
  execFileSync("x86_64-w64-mingw32-gcc-win32", [
    "-shared",
    "-O2",
    "-o",
    dll,
    fileURLToPath(new URL("fixtures/process-prng.c", import.meta.url)),
    "-ladvapi32",
  ]);
  copyFileSync(dll, join(wine.prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll"));
}

const RUN_LIMIT_MS = HANG_MS;
const WINDOWS = TARGETS.find((target) => target.runner === "wine")!;

/** The Unix path of the Windows path `path`, as the prefix `prefix` maps its drives. */
export function unixPath(path: string, prefix: string): string {
  const match = /^([A-Za-z]):(?:\\(.*))?$/.exec(path);
  if (match === null) throw new Error(`unixPath: ${path} is not an absolute Windows path`);
  const drive = match[1]!.toLowerCase();
  const parts = (match[2] ?? "").split("\\").filter((part) => part !== "");
  if (drive === "z") return `/${parts.join("/")}`;
  if (drive === "c") return join(prefix, "drive_c", ...parts);
  return join(prefix, "dosdevices", `${drive}:`, ...parts);
}

/** The path of the Windows target's `node.exe`, fetched once for every test file. */
export async function windowsNode(): Promise<string> {
  const lockPath = join(REPO_ROOT, ".cache", `${WINDOWS.runtime}-${WINDOWS.node}.lock`);
  mkdirSync(dirname(lockPath), { recursive: true });
  const attempt = await waitForFileLock(lockPath, { waitMs: HEAVY_HANG_MS });
  if (!attempt.acquired) throw new Error(`cannot take ${lockPath}: ${attempt.reason}`);
  try {
    return await targetNode(REPO_ROOT, WINDOWS);
  } finally {
    attempt.lock.release();
  }
}

export interface WineRunOptions {
  /** Working directory (a Unix path; the program sees it as Z:\...). */
  cwd?: string;
  /** Variables beside PATH and the prefix's; undefined removes one. Paths in them must be Windows paths. */
  env?: Record<string, string | undefined>;
  /** What the program reads on stdin; none: an empty input. */
  stdin?: string;
  /** Killed (SIGKILL) after this long; the result then says `timedOut`. */
  timeoutMs?: number;
}

export type WineResult = WineExit & { timedOut: boolean };

export interface WineProcess extends Started {
  /** Resolves with stdout once `ready(stdout)` holds; rejects if it exits first or takes too long. */
  waitForOutput(ready: (stdout: string) => boolean, timeoutMs?: number): Promise<string>;
  readonly exited: Promise<WineResult>;
}

export interface Wine {
  readonly prefix: string;
  /** The environment that selects the prefix (WINEPREFIX, its HOME...). */
  readonly env: PrefixEnv;
  /** %APPDATA% of the prefix's user, as a Unix path. */
  readonly appData: string;
  /** Starts `program` (a Unix path, or a program of the prefix such as `cmd`). */
  start(program: string, args: string[], options?: WineRunOptions): WineProcess;
  /** Runs `program` to its end. */
  run(program: string, args: string[], options?: WineRunOptions): Promise<WineResult>;
  /**
   * Waits until the prefix's wineserver has ended (a few seconds after its last
   * process). The next process then starts it anew and gets the same pid as the
   * first process after the last restart: a Windows pid given again.
   */
  untilServerEnds(): Promise<void>;
  /** SIGKILL for every process started here that is still running. */
  killAll(): void;
  /** Ends every process of the prefix and its wineserver: before its directory is removed. */
  close(): Promise<void>;
}

/**
 * A new WINEPREFIX in `dir`, the test file's temporary directory (`<dir>/wine`, its
 * HOME `<dir>/wine-home`); the stdio files of its programs are in `dir` too.
 */
export async function prepareWine(dir: string): Promise<Wine> {
  const missing = wineMissing();
  if (missing !== undefined)
    throw new Error(`${missing}; npm test installs it as root (scripts/system-packages.mjs)`);
  const env = await winePrefix(join(dir, "wine"));
  const running = new Set<ChildProcess>();

  function start(program: string, args: string[], options: WineRunOptions = {}): WineProcess {
    const started = spawnWine(program, args, {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...options.env },
      prefixEnv: env,
      scratch: dir,
      input: options.stdin ?? "",
    });
    const { child } = started;
    running.add(child);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs ?? RUN_LIMIT_MS);
    const exited = started.exited
      .then((exit) => ({ ...exit, timedOut }))
      .finally(() => {
        clearTimeout(timer);
        running.delete(child);
      });
    const process_: WineProcess = {
      stdout: started.stdout,
      stderr: started.stderr,
      exited,
      signal: (signal) => {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      },
      waitForOutput: (ready, timeoutMs) => waitForOutput(process_, ready, timeoutMs),
    };
    return process_;
  }

  return {
    prefix: env.WINEPREFIX,
    env,
    appData: join(userProfile(env), "AppData", "Roaming"),
    start,
    run: (program, args, options) => start(program, args, options).exited,
    untilServerEnds: () => waitForWineServer(env),
    killAll() {
      for (const child of running) child.kill("SIGKILL");
    },
    close: () => waitForWineServer(env, { kill: true }),
  };
}
