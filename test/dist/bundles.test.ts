/**
 * undici is for the bulk add only: it is bundled into dist/bulk.cjs and nowhere
 * else, and `list` (the start-up path of the one-shot commands) loads neither
 * that bundle nor the server, nor, without a proxy, the proxy agent, nor, without
 * a key kept in the system keyring, the keyring, nor, without `--jq`, jq.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unusedPort } from "../client/http-server.js";
import { tempDir } from "../e2e/harness.js";
import { BIN, ensureBuilt, REPO_ROOT } from "../server/cli-build.js";

const DIST = join(REPO_ROOT, "dist");
const PROXY_AGENT = join(DIST, "vendor", "https-proxy-agent.cjs");
const TEST_HOSTS = join(REPO_ROOT, "test", "fixtures", "proxy", "test-hosts.cjs");
/** undici's HTTP parser: present wherever undici's client is bundled. */
const UNDICI_MARK = "llhttp";

let home: ReturnType<typeof tempDir>;
beforeAll(async () => {
  await ensureBuilt();
  home = tempDir();
});
afterAll(() => home?.remove());

/** The CommonJS files `args` loads through require (the bundles load each other that way). */
function requiredFiles(args: string[], env: Record<string, string> = {}): string[] {
  const preload = join(home.path, "report-loaded.cjs");
  writeFileSync(
    preload,
    "process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify(Object.keys(require.cache)) + '\\n'));\n",
  );
  const run = spawnSync(process.execPath, ["--require", preload, BIN, ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", PETSTORE_CONFIG_DIR: home.path, ...env },
  });
  const line = run.stderr.split("\n").find((text) => text.startsWith("LOADED "));
  expect(line, run.stderr).toBeDefined();
  return JSON.parse(line!.slice("LOADED ".length)) as string[];
}

describe("the bundles", () => {
  it("hold undici in dist/bulk.cjs only", () => {
    const bundles = [
      ...readdirSync(DIST).filter((name) => /\.c?js$/.test(name)),
      ...readdirSync(join(DIST, "vendor")).map((name) => `vendor/${name}`),
    ];
    const withUndici = bundles.filter((name) =>
      readFileSync(join(DIST, name), "utf8").includes(UNDICI_MARK),
    );
    expect(withUndici).toEqual(["bulk.cjs"]);
  });

  it("`list` loads neither the bulk bundle nor the server; `add --from` loads the bulk bundle", async () => {
    const port = await unusedPort();
    const env = {
      PETSTORE_BASE_URL: `http://127.0.0.1:${port}/v1`,
      PETSTORE_API_KEY: "key-for-a-service-that-is-not-there",
    };
    const list = requiredFiles(["list", "--no-retry"], env).map((file) => file.slice(DIST.length));
    expect(list.filter((file) => /bulk|server|proxy/.test(file))).toEqual([]);

    const from = join(home.path, "rows.ndjson");
    writeFileSync(from, '{"name":"Rex","categoryId":1}\n');
    const bulk = requiredFiles(["add", "--from", from, "--no-retry"], env);
    expect(bulk).toContain(join(DIST, "bulk.cjs"));
  });

  it("`list --json` does not load jq; `list --jq` loads dist/jq.cjs", async () => {
    const port = await unusedPort();
    const env = {
      PETSTORE_BASE_URL: `http://127.0.0.1:${port}/v1`,
      PETSTORE_API_KEY: "key-for-a-service-that-is-not-there",
    };
    const jq = join(DIST, "jq.cjs");
    expect(requiredFiles(["list", "--json", "--no-retry"], env)).not.toContain(jq);
    expect(requiredFiles(["list", "--jq", ".", "--no-retry"], env)).toContain(jq);
  });

  it("`list` loads the keyring only for a key kept there: not with PETSTORE_API_KEY, not for a key in the file", async () => {
    const port = await unusedPort();
    writeFileSync(
      join(home.path, "config.json"),
      JSON.stringify({
        profiles: { file: { apiKey: "key-in-the-file" }, kept: { keyring: "kept@elsewhere" } },
      }),
      { mode: 0o600 },
    );
    const env = { PETSTORE_BASE_URL: `http://127.0.0.1:${port}/v1` };
    const keyring = join(DIST, "keyring.cjs");
    const list = (profile: string, more: Record<string, string> = {}) =>
      requiredFiles(["list", "--no-retry", "--profile", profile], { ...env, ...more });
    expect(list("kept", { PETSTORE_API_KEY: "key-from-the-environment" })).not.toContain(keyring);
    expect(list("file")).not.toContain(keyring);
    expect(list("kept")).toContain(keyring);
  });

  it("`list` behind a proxy loads the proxy agent from dist/vendor/, and no undici", async () => {
    const proxyPort = await unusedPort();
    const env = {
      PETSTORE_BASE_URL: "https://pets.proxied.test/v1",
      PETSTORE_API_KEY: "key-for-a-service-that-is-not-there",
      HTTPS_PROXY: `http://127.0.0.1:${proxyPort}`,
      // No DNS query leaves for the .test name sent direct below: it fails at once.
      NODE_OPTIONS: `--require=${TEST_HOSTS}`,
    };
    const proxied = requiredFiles(["list", "--no-retry"], env);
    expect(proxied).toContain(PROXY_AGENT);
    // Named as the first test names them: by their path in dist/ (a checkout's own path may say "bulk").
    const inDist = proxied
      .filter((file) => file.startsWith(DIST))
      .map((file) => file.slice(DIST.length));
    expect(inDist.filter((file) => /bulk|server/.test(file))).toEqual([]);
    const direct = requiredFiles(["list", "--no-retry"], { ...env, NO_PROXY: ".test" });
    expect(direct).not.toContain(PROXY_AGENT);
  });
});
