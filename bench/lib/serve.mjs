/**
 * `petstore serve` as a black box: started through bin/petstore.js exactly as a user would,
 * ready when it prints its base URL on stdout.
 */
import { join } from "node:path";
import { request } from "./http.mjs";
import { peakRssKiB, runToEnd, startProcess, stopProcess } from "./processes.mjs";

/** The unlimited key the bench serves with, and the `--key` flag value that creates it. */
export const BENCH_KEY = "bench";
export const BENCH_KEY_FLAG = `${BENCH_KEY}:enterprise`;

const BASE_URL_PATTERN = /\bhttps?:\/\/(?:127\.0\.0\.1|localhost|\[::1\]):\d+[^\s"'<>),]*/;

export function authHeaders() {
  return { authorization: `Bearer ${BENCH_KEY}` };
}

/** The base URL as printed, on 127.0.0.1, without a trailing slash, ending in /v1. */
function normaliseBaseUrl(printed) {
  const url = new URL(printed.replace("//localhost:", "//127.0.0.1:"));
  let path = url.pathname.replace(/\/+$/, "");
  if (!path.endsWith("/v1")) path += "/v1";
  return `${url.origin}${path}`;
}

export function createServe({ repoRoot, pets }) {
  const bin = join(repoRoot, "bin", "petstore.js");
  let helpText;
  let availability;

  async function serveHelp() {
    if (helpText === undefined) {
      const run = await runToEnd(process.execPath, [bin, "serve", "--help"], { cwd: repoRoot });
      helpText = run.code === 0 ? run.stdout : "";
    }
    return helpText;
  }

  /**
   * The arguments for serving `file`, following what `serve --help` offers. `keys`: the `--key`
   * values (default the unlimited bench key); `quiet: false` keeps the access log on stderr;
   * `extra`: more arguments, as given.
   */
  async function serveArgs(file, { keys = [BENCH_KEY_FLAG], quiet = true, extra = [] } = {}) {
    const help = await serveHelp();
    const offers = (flag) => new RegExp(`${flag}\\b`).test(help);
    const fileFlag = ["--file", "--data", "--db", "--store"].find(offers);
    const args = fileFlag ? [fileFlag, file] : [file];
    if (offers("--port")) args.push("--port", "0");
    if (offers("--host")) args.push("--host", "127.0.0.1");
    for (const key of keys) args.push("--key", key);
    if (quiet && offers("--quiet")) args.push("--quiet");
    args.push(...extra);
    return args;
  }

  /** `onStderr` receives everything serve writes on stderr (the access log without `quiet`). */
  async function start(file, { timeoutMs = 60_000, keys, quiet, extra, onStderr } = {}) {
    const args = ["serve", ...(await serveArgs(file, { keys, quiet, extra }))];
    const started = await startProcess(process.execPath, [bin, ...args], {
      cwd: repoRoot,
      readyPattern: BASE_URL_PATTERN,
      timeoutMs,
      onStderr,
    });
    const baseUrl = normaliseBaseUrl(started.match[0]);
    const { child } = started;
    return {
      pid: child.pid,
      baseUrl,
      origin: new URL(baseUrl).origin,
      basePath: new URL(baseUrl).pathname,
      startupMs: started.readyMs,
      commandLine: `node bin/petstore.js ${args.join(" ")}`,
      peakRssKiB: () => peakRssKiB(child.pid),
      stderr: started.stderr,
      stop: (graceMs) => stopProcess(child, graceMs),
    };
  }

  /** Whether serve can run at all here; asked once, with a tiny store. */
  function available() {
    availability ??= (async () => {
      let server;
      try {
        server = await start(await pets.fresh(20), { timeoutMs: 20_000 });
        const page = await request("GET", `${server.baseUrl}/pets?limit=1`, {
          headers: authHeaders(),
        });
        if (page.status !== 200) {
          return { ok: false, reason: `serve answered ${page.status} to GET /pets with the key` };
        }
        return { ok: true };
      } catch (error) {
        return { ok: false, reason: `serve not available: ${error.message}` };
      } finally {
        await server?.stop(5_000);
      }
    })();
    return availability;
  }

  return { start, available, serveArgs };
}
