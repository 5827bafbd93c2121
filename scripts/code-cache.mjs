// Writes the V8 code cache of the hot CLI bundle: a child process loads the
// bundle exactly as bin/petstore.js does, runs the hot commands against a stub
// server (so the functions they call are compiled), and saves what V8 compiled.
// V8 rejects a cache made by another Node version or other flags; the launcher
// then just compiles as usual.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const LAUNCHER = fileURLToPath(new URL("../bin/petstore.js", import.meta.url));

/** The command lines whose code paths the cache should hold. */
const WORKLOAD = [
  ["list", "--json"],
  ["list"],
  ["list", "--status", "available", "--limit", "5", "-o", "ndjson"],
  ["list", "-o", "csv"],
  ["get", "1", "--json"],
  ["get", "1"],
  ["add", "--name", "Rex", "--category-id", "1", "-q"],
];

const PET = '{"id":1,"name":"Rex","categoryId":1,"status":"available"}';

function stubService(request, response) {
  const headers = {
    "content-type": "application/json",
    "x-ratelimit-limit": "1000",
    "x-ratelimit-remaining": "999",
    "x-ratelimit-reset": String(Math.ceil(Date.now() / 1000) + 60),
  };
  if (request.method === "POST") {
    request.resume();
    request.on("end", () => response.writeHead(201, headers).end(PET));
  } else if (request.url?.startsWith("/v1/pets/")) {
    response.writeHead(200, { ...headers, sunset: "Thu, 05 Dec 2030 00:00:00 GMT" }).end(PET);
  } else {
    response.writeHead(200, headers).end(`[${PET},${PET.replace('"id":1', '"id":2')}]`);
  }
}

const CHILD = `
const { writeFileSync } = require("node:fs");
const { loadBundle } = require(process.env.CODE_CACHE_LAUNCHER);
const bundle = process.env.CODE_CACHE_BUNDLE;
const { exports, script } = loadBundle(bundle, undefined);
(async () => {
  for (const argv of JSON.parse(process.env.CODE_CACHE_WORKLOAD)) {
    const code = await exports.main(argv);
    if (code !== 0) throw new Error("code cache workload: " + argv.join(" ") + " exited " + code);
  }
  writeFileSync(bundle + ".cache", script.createCachedData());
})().catch((error) => { console.error(error); process.exitCode = 1; });
`;

/**
 * The child's environment without this machine's PETSTORE_* settings (a stored
 * profile name would break the workload) and without NODE_OPTIONS: V8 accepts a
 * cache only under the flags it was made with, and users run without any.
 */
function cleanEnvironment(env) {
  return Object.fromEntries(
    Object.entries(env).filter(
      ([name]) => !name.startsWith("PETSTORE_") && name !== "NODE_OPTIONS",
    ),
  );
}

export async function writeCodeCache(bundleUrl) {
  const bundle = fileURLToPath(bundleUrl);
  if ((await readFile(bundle, "utf8")).includes("import(")) {
    throw new Error(`${bundle} contains import(), which a vm.Script with a code cache cannot run`);
  }
  const server = createServer(stubService);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const configDir = await mkdtemp(join(tmpdir(), "petstore-code-cache-"));
  try {
    const env = {
      ...cleanEnvironment(process.env),
      CODE_CACHE_LAUNCHER: LAUNCHER,
      CODE_CACHE_BUNDLE: bundle,
      CODE_CACHE_WORKLOAD: JSON.stringify(WORKLOAD),
      PETSTORE_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`,
      PETSTORE_API_KEY: "code-cache-key",
      PETSTORE_CONFIG_DIR: configDir,
      PETSTORE_NO_DEPRECATION_WARNING: "1",
      NO_COLOR: "1",
    };
    const child = spawn(process.execPath, ["-e", CHILD], {
      env,
      stdio: ["ignore", "ignore", "inherit"],
    });
    const code = await new Promise((resolve) => child.on("exit", resolve));
    if (code !== 0) throw new Error(`making the code cache failed (exit ${code})`);
  } finally {
    server.close();
    await rm(configDir, { recursive: true, force: true });
  }
}
