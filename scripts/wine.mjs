// Running Windows programs (node.exe, dist/petstore-win-x64.exe) under wine on this
// Linux machine, for scripts/build-binary.mjs and the binary's tests. What wine
// needs (/work/shared/guides/platforms.md):
// - a prefix of our own (WINEPREFIX is always set, so nothing lands in ~/.wine),
//   made once with `winecfg /v win10`: node.exe refuses the default, Windows 7;
// - stdin, stdout and stderr as files: node.exe fails with EBADF on a pipe;
// - Windows paths: the Unix root is drive Z:.
import { spawn, spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";

export const WINE = "/usr/lib/wine/wine64";
const WINESERVER = "/usr/lib/wine/wineserver";
/** Marks a finished prefix; test/platforms/wine.ts (branch windows) uses the same mark. */
const READY = ".petstore-ready";

/** Why wine cannot be used here, or undefined when it can. */
export function wineMissing() {
  return existsSync(WINE) ? undefined : `${WINE} is not installed (apt-get install wine64)`;
}

/**
 * The environment that runs wine in the prefix `dir`, made (about 700 MB, 10 s or more) on
 * first use. Its HOME is `<dir>-home`: wine links the profile's Desktop, Documents and the
 * like to HOME, which must not lead a Windows program into a real home directory.
 */
export function winePrefix(dir) {
  const prefix = resolve(dir);
  const env = { WINEPREFIX: prefix, WINEARCH: "win64", WINEDEBUG: "-all", HOME: `${prefix}-home` };
  if (!existsSync(join(prefix, READY))) {
    mkdirSync(env.HOME, { recursive: true });
    const made = spawnSync(WINE, ["winecfg", "/v", "win10"], {
      env: { ...process.env, ...env },
      stdio: "ignore",
      timeout: 300_000,
    });
    if (made.status !== 0) {
      throw new Error(
        `wine could not make its prefix ${dir} (${made.error?.message ?? made.status})`,
      );
    }
    // wineserver writes the prefix too: it is complete once that has ended.
    stopWineServer(env);
    writeFileSync(join(prefix, READY), "");
  }
  return env;
}

/** Waits for the prefix's wineserver to end (it lingers a few seconds after its last program), or ends it. */
export function stopWineServer(prefixEnv, { kill = false } = {}) {
  spawnSync(WINESERVER, [kill ? "-k" : "-w"], {
    env: { ...process.env, ...prefixEnv },
    stdio: "ignore",
    timeout: 60_000,
  });
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
  return {
    dir,
    paths,
    fds: [openSync(paths.in, "r"), openSync(paths.out, "w"), openSync(paths.err, "w")],
  };
}

/**
 * Runs `program args` under wine to the end, like spawnSync: `{ status, stdout, stderr }`.
 * `scratch` holds the stdio files (removed after); `prefixEnv` is winePrefix's.
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
    stdio.fds.forEach((fd) => closeSync(fd));
    return {
      status: result.status,
      stdout: readFileSync(stdio.paths.out, "utf8"),
      stderr:
        readFileSync(stdio.paths.err, "utf8") + (result.error ? `\n${result.error.message}` : ""),
    };
  } finally {
    rmSync(stdio.dir, { recursive: true, force: true });
  }
}

/**
 * Starts `program args` under wine in the background. Its output is read from files:
 * `stdout()` and `stderr()` return what it has written so far. `kill("SIGINT")` reaches
 * it as a Ctrl-C; SIGTERM ends it with no handler run, as a closed console does.
 */
export function spawnWine(program, args, { cwd, env, prefixEnv, scratch }) {
  const stdio = stdioFiles(scratch, "");
  const child = spawn(WINE, [program, ...args], {
    cwd,
    env: { ...env, ...prefixEnv },
    stdio: stdio.fds,
  });
  stdio.fds.forEach((fd) => closeSync(fd));
  return {
    child,
    stdout: () => readFileSync(stdio.paths.out, "utf8"),
    stderr: () => readFileSync(stdio.paths.err, "utf8"),
    cleanUp: () => rmSync(stdio.dir, { recursive: true, force: true }),
  };
}
