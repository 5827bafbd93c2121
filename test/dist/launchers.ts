/**
 * How the tests run each standalone binary on this Linux x64 machine: natively, under
 * qemu-user (linux-arm64) or under wine (win-x64, with its own prefix, stdio as files
 * and Z:\ paths: scripts/wine.mjs). Each launcher runs one-shot commands and `serve`
 * with the interface of ./run.ts.
 */
import { userInfo } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { QEMU } from "../../scripts/binary-targets.mjs";
import { spawnWine, runWine, stopWineServer, windowsPath } from "../../scripts/wine.mjs";
import { run, serve, type Served } from "./run.js";

interface Options {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface Launcher {
  /** A path as the binary names it. */
  path(path: string): string;
  /** Where `auth login` keeps the config when nothing chooses a directory (HOME is `home`). */
  defaultConfigDir(home: string): string;
  run(args: string[], options: Options & { input?: string }): ReturnType<typeof run>;
  /** `serve --port 0 --quiet ...`; `stop()` is SIGTERM, or a Ctrl-C under wine. */
  serve(args: string[], options: Options): Promise<Served>;
  /** The same launcher for another copy of the binary. */
  at(binary: string): Launcher;
  /** Ends what the launcher left running (wine's server). */
  close(): void;
}

/** A one-shot command may take this long under emulation on a loaded 2-core machine: a hang detector. */
const EMULATED_RUN_MS = 120_000;

function direct(prefix: string[], binary: string, timeout?: number): Launcher {
  const command = [...prefix, binary];
  return {
    path: (path) => path,
    defaultConfigDir: (home) => join(home, ".config", "petstore"),
    run: (args, options) => run(command, args, { ...options, timeout }),
    serve: (args, options) => serve(command, args, options),
    at: (other) => direct(prefix, other, timeout),
    close: () => {},
  };
}

/** `serve` under wine: its stdout is a file, read until the base URL's line is there. */
async function serveUnderWine(
  program: string,
  args: string[],
  options: Options & { prefixEnv: NodeJS.ProcessEnv; scratch: string },
): Promise<Served> {
  const started = spawnWine(program, ["serve", "--port", "0", "--quiet", ...args], options);
  const exited = new Promise<number | null>((resolve) =>
    started.child.on("exit", (code) => resolve(code)),
  );
  let code: number | null | undefined;
  void exited.then((exitCode) => (code = exitCode));
  const deadline = Date.now() + EMULATED_RUN_MS;
  for (;;) {
    const out = started.stdout();
    if (out.includes("\n")) {
      return {
        url: out.split("\n")[0]!,
        stop: async () => {
          started.child.kill("SIGINT");
          const result = await exited;
          started.cleanUp();
          return result;
        },
      };
    }
    if (code !== undefined || Date.now() > deadline) {
      if (code === undefined) started.child.kill("SIGKILL");
      const stderr = started.stderr();
      started.cleanUp();
      throw new Error(
        `serve under wine ${code === undefined ? "did not start" : `exited with ${code}`}: ${stderr}`,
      );
    }
    await sleep(100);
  }
}

function underWine(binary: string, scratch: string, prefixEnv: NodeJS.ProcessEnv): Launcher {
  const program = windowsPath(binary);
  return {
    path: windowsPath,
    defaultConfigDir: () =>
      join(
        prefixEnv.WINEPREFIX!,
        "drive_c",
        "users",
        userInfo().username,
        "AppData",
        "Roaming",
        "petstore",
      ),
    run: (args, options) =>
      runWine(program, args, { ...options, prefixEnv, scratch, timeout: EMULATED_RUN_MS }),
    serve: (args, options) => serveUnderWine(program, args, { ...options, prefixEnv, scratch }),
    at: (other) => underWine(other, scratch, prefixEnv),
    close: () => stopWineServer(prefixEnv, { kill: true }),
  };
}

/**
 * The launcher of a binary built for `runner` (scripts/binary-targets.mjs). `scratch`
 * is the test's own directory, for wine's stdio files; `prefixEnv` is the wine prefix
 * (scripts/wine.mjs's winePrefix), for wine only.
 */
export function launcher(
  runner: "native" | "qemu" | "wine",
  binary: string,
  scratch: string,
  prefixEnv?: NodeJS.ProcessEnv,
): Launcher {
  if (runner === "native") return direct([], binary);
  if (runner === "qemu") return direct(QEMU, binary, EMULATED_RUN_MS);
  return underWine(binary, scratch, prefixEnv!);
}
