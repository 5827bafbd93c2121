/**
 * Spawning helpers for the packaging tests: one-shot commands, a process started in
 * the background, and a serve process. A program under wine (test/platforms/wine.ts)
 * is started with the same interface, `Started`.
 */
import { spawn, spawnSync } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { HANG_MS } from "../limits.js";

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A process running in the background. */
export interface Started {
  /** What it has written so far. */
  stdout(): string;
  stderr(): string;
  /** Sends `signal`, unless it has ended. */
  signal(signal: NodeJS.Signals): void;
  readonly exited: Promise<Exit>;
}

export interface Served {
  url: string;
  stop(): Promise<number | null>;
}

/** Starts `command args` with stdout and stderr as pipes. */
export function start(
  command: string[],
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Started {
  const child = spawn(command[0]!, [...command.slice(1), ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<Exit>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    signal: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    exited,
  };
}

/**
 * Resolves with the stdout of `started` once `ready(stdout)` holds; rejects when it
 * ends first or takes longer than `timeoutMs`.
 */
export async function waitForOutput(
  started: Started,
  ready: (stdout: string) => boolean,
  timeoutMs: number = HANG_MS,
): Promise<string> {
  let ended: Exit | Error | undefined;
  started.exited.then(
    (exit) => (ended = exit),
    (error: Error) => (ended = error),
  );
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = started.stdout();
    if (ready(text)) return text;
    if (ended instanceof Error) throw ended;
    if (ended !== undefined) {
      throw new Error(`it exited (${ended.code ?? ended.signal}) first: ${ended.stderr}`);
    }
    if (Date.now() > deadline) throw new Error(`no output in time: ${started.stderr()}`);
    await sleep(50);
  }
}

/**
 * The serve process `started` once it has printed its base URL; `stop()` sends
 * `stopSignal` and resolves with its exit code.
 */
export async function served(
  started: Started,
  stopSignal: NodeJS.Signals = "SIGTERM",
): Promise<Served> {
  try {
    const stdout = await waitForOutput(started, (text) => /^.+\n/.test(text));
    return {
      url: stdout.split("\n")[0]!,
      stop: async () => {
        started.signal(stopSignal);
        return (await started.exited).code;
      },
    };
  } catch (error) {
    started.signal("SIGKILL");
    throw new Error(`serve did not start: ${(error as Error).message}`);
  }
}

/** Starts `<command> serve --port 0 --quiet ...` and resolves once it prints its base URL. */
export function serve(
  command: string[],
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<Served> {
  return served(start(command, ["serve", "--port", "0", "--quiet", ...args], options));
}

export function run(
  command: string[],
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; timeout?: number | undefined },
) {
  const result = spawnSync(command[0]!, [...command.slice(1), ...args], {
    cwd: options.cwd,
    env: options.env,
    input: options.input ?? "",
    encoding: "utf8",
    timeout: options.timeout ?? HANG_MS,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
