/** `petstore get` against a real `petstore serve --sunset now`: a 410 in a sentence, exit 11. */
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
