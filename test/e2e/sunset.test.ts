/** `petstore get` against a real `petstore serve --sunset now`: a 410 in a sentence, exit 11. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { killServes, startServe, type Serve } from "../server/serve-process.js";
import { runCli, tempDir } from "./harness.js";

const KEY = "sunset-e2e-key-0123";
let home: ReturnType<typeof tempDir>;
let serve: Serve;

beforeAll(async () => {
  home = tempDir();
  const args = ["--port", "0", "--seed", "2", "--key", KEY, "--sunset", "now", "--quiet"];
  serve = await startServe([...args, "--file", `${home.path}/pets.json`], { cwd: home.path });
});
afterAll(() => {
  killServes();
  home.remove();
});

it("petstore get meets the removal with a plain sentence and exit code 11", async () => {
  const env = {
    PETSTORE_BASE_URL: serve.lines[0],
    PETSTORE_API_KEY: KEY,
    PETSTORE_CONFIG_DIR: home.path,
  };
  const run = await runCli(["get", "1"], { env });
  expect(run.code).toBe(11);
  expect(run.stdout).toBe("");
  expect(run.stderr).toContain("the service has removed GET");
  expect(run.stderr).toContain("410 Gone");
  expect(run.stderr).toContain("`petstore list`");
  expect(run.stderr).not.toContain("    at ");
  expect((await runCli(["list", "-q"], { env })).code).toBe(0);
});

it("petstore verdict names the removed calls, then a counted warning in one readable line", async () => {
  const env = {
    PETSTORE_BASE_URL: serve.lines[0],
    PETSTORE_API_KEY: KEY,
    PETSTORE_CONFIG_DIR: home.path,
  };
  for (let i = 0; i < 2; i++) expect((await fetch(`${serve.lines[0]}/pets`)).status).toBe(401);
  const run = await runCli(["verdict"], { env });
  expect(run.code, run.stderr).toBe(12);
  expect(run.stdout).toMatch(
    /^violation removed-endpoint: GET \/v1\/pets\/1 at \S+, request \d+, key …/m,
  );
  expect(run.stdout).toMatch(
    /^warning unauthenticated: 2 times, the last GET \/v1\/pets at \S+, request \d+, no valid key: /m,
  );
});

it("petstore verdict says so when what answers 200 is not a fake's verdict (exit 6)", async () => {
  const other = createServer((_req, res) => res.end('{"status":"ok"}'));
  await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = other.address() as AddressInfo;
    const env = {
      PETSTORE_BASE_URL: `http://127.0.0.1:${port}/v1`,
      PETSTORE_CONFIG_DIR: home.path,
    };
    const run = await runCli(["verdict"], { env });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain(
      `error: http://127.0.0.1:${port}/__admin/verdict did not answer with a verdict; is it petstore serve?`,
    );
    expect(run.stderr).not.toContain("    at ");
  } finally {
    other.close();
  }
});
