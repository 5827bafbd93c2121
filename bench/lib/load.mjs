/**
 * The load driver: wrk (1 thread) when it is installed, autocannon otherwise. Both get the same
 * description of the load and answer with the same figures, so phases never care which ran.
 * A load is bounded in time and goes only to 127.0.0.1.
 */
import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createRequire } from "node:module";
import autocannon from "autocannon";
import { runToEnd } from "./processes.mjs";
import { seededInts } from "./stats.mjs";

const activeInstances = new Set();
const PATHS_PER_CONNECTION = 128;

let chosenTool;

/** "wrk" or "autocannon"; BENCH_LOAD_TOOL forces one. */
export function loadTool() {
  if (chosenTool) return chosenTool;
  const forced = process.env.BENCH_LOAD_TOOL;
  if (forced === "wrk" || forced === "autocannon") return (chosenTool = forced);
  const found = spawnSync("/bin/sh", ["-c", "command -v wrk"], { stdio: "ignore" });
  return (chosenTool = found.status === 0 ? "wrk" : "autocannon");
}

export function describeLoadTool(connections) {
  return loadTool() === "wrk"
    ? `wrk (1 thread, ${connections} connections)`
    : `autocannon ${autocannonVersion()} in the harness process (${connections} connections; wrk not found)`;
}

function autocannonVersion() {
  return createRequire(import.meta.url)("autocannon/package.json").version;
}

/** Stops loads in flight (Ctrl-C); wrk runs as a child process and is stopped with the others. */
export function stopAllLoads() {
  for (const instance of activeInstances) instance.stop();
}

function assertLoopback(origin) {
  const { hostname } = new URL(origin);
  if (hostname !== "127.0.0.1") throw new Error(`load only goes to 127.0.0.1, not ${hostname}`);
}

/**
 * @param {object} load
 * @param {string} load.origin  e.g. http://127.0.0.1:4321
 * @param {string} load.path    request path; `{id}` is replaced by ids drawn from `load.ids`
 * @param {[number, number]} [load.ids]  inclusive id range for `{id}`
 * @param {"GET"|"POST"} [load.method]
 * @param {Record<string,string>} [load.headers]
 * @param {string} [load.body]
 * @param {number} load.connections
 * @param {number} load.seconds
 * @param {string} load.scratchDir  where wrk's script goes
 * @returns {Promise<{tool: string, rps: number, requests: number, ok: number, non2xx: number,
 *   errors: number, seconds: number, p50Ms: number, p99Ms: number, loaderCpu?: number}>}
 */
export async function runLoad(load) {
  assertLoopback(load.origin);
  return loadTool() === "wrk" ? runWrk(load) : runAutocannon(load);
}

async function runAutocannon(load) {
  const { origin, path, ids, method = "GET", headers = {}, body, connections, seconds } = load;
  const options = { url: origin + path.replace("{id}", "1"), connections, duration: seconds };
  options.method = method;
  options.headers =
    body === undefined ? headers : { "content-type": "application/json", ...headers };
  if (body !== undefined) options.body = body;
  if (ids) {
    // Each connection gets its own paths, drawn up front: a per-request setupRequest makes
    // autocannon rebuild every request, and the loader, not the server, becomes the bottleneck.
    // Building is not free either (~30 us a request, inside the timed run), hence few per client.
    const nextId = seededInts(0x5eed, ids[0], ids[1]);
    const drawPaths = () =>
      Array.from({ length: PATHS_PER_CONNECTION }, () => ({
        path: path.replace("{id}", String(nextId())),
      }));
    options.requests = [{}];
    options.setupClient = (client) => client.setRequests(drawPaths());
  }
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const instance = autocannon(options);
  activeInstances.add(instance);
  let result;
  try {
    result = await instance;
  } finally {
    activeInstances.delete(instance);
  }
  const cpu = process.cpuUsage(cpuBefore);
  const wallSeconds = (performance.now() - wallBefore) / 1000;
  const requests = result.requests.total;
  const non2xx = result.non2xx;
  return {
    tool: "autocannon",
    rps: (requests - non2xx) / result.duration,
    requests,
    ok: requests - non2xx,
    non2xx,
    errors: result.errors,
    seconds: result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [
        code,
        Number(count),
      ]),
    ),
    loaderCpu: (cpu.user + cpu.system) / 1e6 / wallSeconds,
  };
}

function luaString(text) {
  return JSON.stringify(text);
}

async function runWrk(load) {
  const { origin, path, ids, method = "GET", headers = {}, body, connections, seconds } = load;
  const lines = [`wrk.method = ${luaString(method)}`];
  for (const [name, value] of Object.entries(headers)) {
    lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  }
  if (body !== undefined) {
    lines.push(`wrk.body = ${luaString(body)}`);
    lines.push(`wrk.headers["Content-Type"] = "application/json"`);
  }
  if (ids) {
    const [before, after] = path.split("{id}");
    lines.push(
      `math.randomseed(24301)`,
      `request = function()`,
      `  return wrk.format(nil, ${luaString(before)} .. math.random(${ids[0]}, ${ids[1]}) .. ${luaString(after ?? "")})`,
      `end`,
    );
  }
  lines.push(
    `done = function(summary, latency, requests)`,
    `  local e = summary.errors`,
    `  io.write(string.format('BENCH {"requests":%d,"us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50":%d,"p99":%d}\\n',`,
    `    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,`,
    `    math.floor(latency:percentile(50)), math.floor(latency:percentile(99))))`,
    `end`,
  );
  const script = join(load.scratchDir, `wrk-${process.pid}-${Date.now()}.lua`);
  await writeFile(script, lines.join("\n") + "\n");
  const url = origin + (ids ? path.replace("{id}", "1") : path);
  const args = [
    "-t1",
    `-c${connections}`,
    `-d${Math.max(1, Math.round(seconds))}s`,
    "-s",
    script,
    url,
  ];
  const run = await runToEnd("wrk", args, { timeoutMs: (seconds + 30) * 1000 });
  const match = /^BENCH (\{.*\})$/m.exec(run.stdout);
  if (run.code !== 0 || !match) {
    throw new Error(`wrk failed (code ${run.code}): ${(run.stderr || run.stdout).trim()}`);
  }
  const figures = JSON.parse(match[1]);
  const runSeconds = figures.us / 1e6;
  // wrk counts statuses above 399 as "status" errors; socket errors are counted apart.
  const errors = figures.connect + figures.read + figures.write + figures.timeout;
  const ok = figures.requests - figures.status;
  return {
    tool: "wrk",
    rps: ok / runSeconds,
    requests: figures.requests,
    ok,
    non2xx: figures.status,
    errors,
    seconds: runSeconds,
    p50Ms: figures.p50 / 1000,
    p99Ms: figures.p99 / 1000,
  };
}
