/** Spawning helpers for the packaging tests: a serve process and one-shot commands. */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";

export interface Served {
  url: string;
  stop(): Promise<number | null>;
}

/** Starts `<command> serve --port 0 ...` and resolves with the base URL it prints. */
export function serve(
  command: string[],
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<Served> {
  const child: ChildProcess = spawn(
    command[0]!,
    [...command.slice(1), "serve", "--port", "0", "--quiet", ...args],
    {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) {
        resolve({
          url: line,
          stop: () => {
            child.kill("SIGTERM");
            return exited;
          },
        });
      }
    });
    void exited.then((code) =>
      reject(new Error(`serve exited with ${code} before it was ready: ${stderr}`)),
    );
  });
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
    timeout: options.timeout ?? 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
