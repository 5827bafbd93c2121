// Running Windows programs (node.exe, dist/petstore-win-x64.exe) under wine on this Linux
// machine: the one harness of scripts/build-binary.mjs and of the tests
// (test/platforms/wine.ts builds its API on it). What wine needs
// (/work/shared/guides/platforms.md):
// - a prefix of our own (WINEPREFIX is always set, so nothing lands in ~/.wine), made once
//   with `winecfg /v win10` (node.exe refuses the default, Windows 7), with a HOME of its
//   own: wine links the profile's Desktop, Documents and the like to HOME;
// - stdin, stdout and stderr as files: node.exe fails with EBADF on a pipe;
// - Windows paths: the Unix root is drive Z:.
import { execFile, spawn, spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

export const WINE = "/usr/lib/wine/wine64";
const WINESERVER = "/usr/lib/wine/wineserver";
/** Marks a finished prefix: one without it was cut short and is made again. */
const READY = ".petstore-ready";
/** Making a prefix is an install; both limits detect a hang on a loaded machine. */
const SETUP_LIMIT_MS = 600_000;
const SERVER_LIMIT_MS = 120_000;

const execFileAsync = promisify(execFile);

/** Why wine cannot be used here, or undefined when it can. */
export function wineMissing() {
  return existsSync(WINE) ? undefined : `${WINE} is not installed (apt-get install wine64)`;
}

function prefixEnvOf(dir) {
  const prefix = resolve(dir);
  return { WINEPREFIX: prefix, WINEARCH: "win64", WINEDEBUG: "-all", HOME: `${prefix}-home` };
}

/**
 * The environment that runs wine in the prefix `dir`, made when it is not there yet (or
 * was cut short). Its HOME is `<dir>-home`, so the folders wine links into the
 * profile never lead a Windows program into a real home directory.
 */
export async function winePrefix(dir) {
  const env = prefixEnvOf(dir);
  if (existsSync(join(env.WINEPREFIX, READY))) return env;
  await rm(env.WINEPREFIX, { recursive: true, force: true });
  await mkdir(env.HOME, { recursive: true });
  try {
    await execFileAsync(WINE, ["winecfg", "/v", "win10"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
      timeout: SETUP_LIMIT_MS,
    });
  } catch (error) {
    throw new Error(`wine could not make its prefix ${dir} (${error.message})`);
  }
  // wineserver writes the prefix too: it is complete once that has ended.
  await waitForWineServer(env);
  await writeFile(join(env.WINEPREFIX, READY), "");
  return env;
}

/** %USERPROFILE% of the prefix's one user (named after the Unix user), as a Unix path. */
export function userProfile(prefixEnv) {
  const users = join(prefixEnv.WINEPREFIX, "drive_c", "users");
  const names = readdirSync(users).filter((name) => name !== "Public");
  if (names.length !== 1) throw new Error(`${users}: expected one user, found ${names}`);
  return join(users, names[0]);
}

/**
 * Waits until the prefix's wineserver has ended (it lingers a few seconds after its last
 * program), or with `kill` ends it and every program of the prefix.
 */
export async function waitForWineServer(prefixEnv, { kill = false } = {}) {
  try {
    await execFileAsync(WINESERVER, [kill ? "-k" : "-w"], {
      env: { ...process.env, ...prefixEnv },
      timeout: SERVER_LIMIT_MS,
    });
  } catch (error) {
    // `-k` exits with 1 when no server is running: nothing was left to end.
    if (!kill || typeof error.code !== "number") throw error;
  }
}

/** `/tmp/x/pets.json` as a Windows program under wine names it: `Z:\tmp\x\pets.json`. */
export function windowsPath(path) {
  return `Z:${resolve(path).replaceAll("/", "\\")}`;
}

/** Opens stdin, stdout and stderr as files in a new directory under `scratch`. */
function stdioFiles(scratch, input) {
  const dir = mkdtempSync(join(scratch, "wine-stdio-"));
  const paths = { in: join(dir, "stdin"), out: join(dir, "stdout"), err: join(dir, "stderr") };
  writeFileSync(paths.in, input);
  const fds = [openSync(paths.in, "r"), openSync(paths.out, "w"), openSync(paths.err, "w")];
  const read = (path) => {
    try {
      return readFileSync(path, "utf8");
    } catch {
      return "";
    }
  };
  return {
    fds,
    closeFds: () => fds.forEach((fd) => closeSync(fd)),
    stdout: () => read(paths.out),
    stderr: () => read(paths.err),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Runs `program args` under wine to the end, like spawnSync: `{ status, stdout, stderr }`.
 * `scratch` holds the stdio files (removed after); `prefixEnv` is winePrefix's, on top of `env`.
 */
export function runWine(program, args, { cwd, env, prefixEnv, scratch, input = "", timeout }) {
  const stdio = stdioFiles(scratch, input);
  try {
    const result = spawnSync(WINE, [program, ...args], {
      cwd,
      env: { ...env, ...prefixEnv },
      stdio: stdio.fds,
      timeout,
    });
    stdio.closeFds();
    return {
      status: result.status,
      stdout: stdio.stdout(),
      stderr: stdio.stderr() + (result.error ? `\n${result.error.message}` : ""),
    };
  } finally {
    stdio.remove();
  }
}

/**
 * Starts `program args` under wine in the background. `stdout()` and `stderr()` return
 * what it has written so far; `exited` resolves with its end and all it wrote (its stdio
 * files are then removed). `child.kill("SIGINT")` reaches it as a Ctrl-C; SIGTERM ends it
 * with no handler run, as a closed console does.
 */
export function spawnWine(program, args, { cwd, env, prefixEnv, scratch, input = "" }) {
  const stdio = stdioFiles(scratch, input);
  let child;
  try {
    child = spawn(WINE, [program, ...args], {
      cwd,
      env: { ...env, ...prefixEnv },
      stdio: stdio.fds,
    });
  } finally {
    stdio.closeFds();
  }
  let done;
  const exited = new Promise((resolve, reject) => {
    child.once("error", (error) => {
      stdio.remove();
      reject(error);
    });
    child.once("exit", (code, signal) => {
      done = { code, signal, stdout: stdio.stdout(), stderr: stdio.stderr() };
      stdio.remove();
      resolve(done);
    });
  });
  return {
    child,
    stdout: () => done?.stdout ?? stdio.stdout(),
    stderr: () => done?.stderr ?? stdio.stderr(),
    exited,
  };
}
