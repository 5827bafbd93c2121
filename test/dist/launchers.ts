/**
 * How the tests run each standalone binary on this Linux x64 machine: natively, under
 * qemu-user (linux-arm64) or under wine (win-x64, in the test's own prefix:
 * test/platforms/wine.ts). Each launcher runs one-shot commands, a command in the
 * background and `serve` with the interfaces of ./run.ts.
 */
import { join } from "node:path";
import { QEMU } from "../../scripts/binary-targets.mjs";
import { runWine } from "../../scripts/wine.mjs";
import { windowsPath, type Wine } from "../platforms/wine.js";
import { run, served, start, type Served, type Started } from "./run.js";

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
  /** Starts a command in the background. */
  start(args: string[], options: Options): Started;
  /** `serve --port 0 --quiet ...`; `stop()` is SIGTERM, or a Ctrl-C under wine. */
  serve(args: string[], options: Options): Promise<Served>;
  /** The same launcher for another copy of the binary. */
  at(binary: string): Launcher;
}

/** A one-shot command may take this long under emulation on a loaded 2-core machine: a hang detector. */
const EMULATED_RUN_MS = 120_000;

const SERVE = ["serve", "--port", "0", "--quiet"];

function direct(prefix: string[], binary: string, timeout?: number): Launcher {
  const command = [...prefix, binary];
  return {
    path: (path) => path,
    defaultConfigDir: (home) => join(home, ".config", "petstore"),
    run: (args, options) => run(command, args, { ...options, timeout }),
    start: (args, options) => start(command, args, options),
    serve: (args, options) => served(start(command, [...SERVE, ...args], options)),
    at: (other) => direct(prefix, other, timeout),
  };
}

function underWine(binary: string, wine: Wine, scratch: string): Launcher {
  const program = windowsPath(binary);
  const startWine = (args: string[], options: Options) =>
    wine.start(program, args, { ...options, timeoutMs: EMULATED_RUN_MS });
  return {
    path: windowsPath,
    defaultConfigDir: () => join(wine.appData, "petstore"),
    run: (args, options) =>
      runWine(program, args, {
        ...options,
        prefixEnv: wine.env,
        scratch,
        timeout: EMULATED_RUN_MS,
      }),
    start: startWine,
    // A Ctrl-C: SIGTERM would end it with no handler run, as a closed console does.
    serve: (args, options) => served(startWine([...SERVE, ...args], options), "SIGINT"),
    at: (other) => underWine(other, wine, scratch),
  };
}

/**
 * The launcher of a binary built for `runner` (scripts/binary-targets.mjs). `scratch`
 * is the test's own directory, for wine's stdio files; `wine` is the test's prefix,
 * for wine only.
 */
export function launcher(
  runner: "native" | "qemu" | "wine",
  binary: string,
  scratch: string,
  wine?: Wine,
): Launcher {
  if (runner === "native") return direct([], binary);
  if (runner === "qemu") return direct(QEMU, binary, EMULATED_RUN_MS);
  return underWine(binary, wine!, scratch);
}
