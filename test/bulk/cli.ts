/** Spawning the real CLI (bin/petstore.js) for the end-to-end tests of the bulk add. */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createServer, request as httpRequest, Agent, type Server } from "node:http";
import { BIN } from "../server/cli-build.js";

export { ensureBuilt } from "../server/cli-build.js";

export interface Run {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

export function spawnCli(args: string[], env: Record<string, string>, stdin?: string): Run {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: env.PETSTORE_CONFIG_DIR ?? "/nonexistent",
      ...env,
    },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (data: Buffer) => (stdout += data.toString()));
  child.stderr.on("data", (data: Buffer) => (stderr += data.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once("close", (code) => resolve(code)),
  );
  if (stdin !== undefined) child.stdin.end(stdin);
  else child.stdin.end();
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

export async function runCli(args: string[], env: Record<string, string>, stdin?: string) {
  const run = spawnCli(args, env, stdin);
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

/**
 * A pass-through proxy that dates every answer by `now`. The fake counts its
 * rate-limit windows by an injected clock, but node:http dates its answers by the
 * real one; a real service's Date and limits come from the same clock, and the
 * bulk add relies on that (see src/bulk/pacer.ts).
 */
export async function datingProxy(upstreamBaseUrl: string, now: () => number) {
  const upstream = new URL(upstreamBaseUrl);
  const agent = new Agent({ keepAlive: true });
  const server: Server = createServer((req, res) => {
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent,
      },
      (answer) => {
        const headers = { ...answer.headers, date: new Date(now()).toUTCString() };
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
    );
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
