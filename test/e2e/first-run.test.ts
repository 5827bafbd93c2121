/**
 * A first run that explains itself, through the built CLI: with no base URL
 * configured the request goes to the built-in placeholder, whose host does not
 * exist (the real resolver answers), and the CLI says so at once; and
 * `petstore serve --host 0.0.0.0 --print-env` prints what the CLI can use.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { killServes, startServe } from "../server/serve-process.js";
import { PRO_KEY, runCli, tempDir } from "./harness.js";

let home: ReturnType<typeof tempDir>;
beforeAll(() => {
  home = tempDir();
});
afterEach(killServes);
afterAll(() => home?.remove());

describe("with no base URL configured", () => {
  it("fails at once with exit 6, saying no service URL is configured and how to set one", async () => {
    const run = await runCli(["list"], {
      env: { PETSTORE_CONFIG_DIR: home.path, PETSTORE_API_KEY: PRO_KEY },
    });
    expect(run.code).toBe(6);
    expect(run.stderr).toBe(
      "error: no service URL is configured: https://api.petstore.example/v1 is the built-in production placeholder, and its host api.petstore.example does not exist\n" +
        "hint: set one with --base-url <url> (this run), PETSTORE_BASE_URL=<url> (this shell), or `petstore auth login --base-url <url>` (stored in the profile)\n",
    );
    expect(run.stderr).not.toContain("retrying");
  });

  it("does not store a key from `auth login` it could not check", async () => {
    const configDir = join(home.path, "login");
    const run = await runCli(["auth", "login", "--with-token"], {
      env: { PETSTORE_CONFIG_DIR: configDir },
      stdin: PRO_KEY,
    });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain("Base URL:    https://api.petstore.example/v1 (default)");
    expect(run.stderr).toContain("the key could not be checked: no service URL is configured");
    expect(existsSync(join(configDir, "config.json"))).toBe(false);
  });
});

describe("serve on every address", () => {
  it.each([
    ["0.0.0.0", /^export PETSTORE_BASE_URL='(http:\/\/127\.0\.0\.1:\d+\/v1)'$/],
    ["::", /^export PETSTORE_BASE_URL='(http:\/\/\[::1\]:\d+\/v1)'$/],
  ])("--host %s --print-env prints a loopback URL the CLI accepts", async (host, line) => {
    const serve = await startServe(
      [
        ...["--file", join(home.path, `every-${host === "::" ? "v6" : "v4"}.json`)],
        ...["--host", host, "--port", "0", "--seed", "2", "--key", `${PRO_KEY}:pro`, "--print-env"],
      ],
      { cwd: home.path },
      2,
    );
    const url = line.exec(serve.lines[0]!)?.[1];
    expect(url, serve.lines[0]).toBeDefined();
    expect(serve.lines[1]).toBe(`export PETSTORE_API_KEY='${PRO_KEY}'`);
    const list = await runCli(["list", "-q"], {
      env: { PETSTORE_BASE_URL: url, PETSTORE_API_KEY: PRO_KEY, PETSTORE_CONFIG_DIR: home.path },
    });
    expect(list).toMatchObject({ code: 0, stdout: "1\n2\n" });
    serve.child.kill("SIGTERM");
    expect((await serve.exited).code).toBe(0);
    expect(serve.stderr()).toContain(`at ${url} (listening on every address, ${host})`);
  });
});
