/**
 * The CLI on a real terminal (a pseudo-terminal from util-linux `script`): a
 * coloured table, and an ora spinner while a retry waits; and the same run
 * in CI shows plain lines only.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/server/server.js";
import { CLI } from "./cli.js";
import { PRO_KEY, startFake, tempDir } from "./harness.js";

const ESC = String.fromCharCode(27);
const SPINNER_FRAMES = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

let server: RunningServer;
let failing: RunningServer;
let home: ReturnType<typeof tempDir>;

beforeAll(async () => {
  server = await startFake({ seed: 2 });
  failing = await startFake({ faults: { failRate: 1, failMode: "503" } });
  home = tempDir();
});
afterAll(async () => {
  await Promise.all([server?.close(), failing?.close()]);
  home?.remove();
});

/**
 * Runs the CLI with stdin, stdout and stderr on one pseudo-terminal; returns what it
 * showed. `typed` is typed once `prompt` appears on the screen.
 */
function onTerminal(
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: { prompt: string; typed: string },
): Promise<{ code: number | null; screen: string }> {
  // A pseudo-terminal from `script` starts with no size; give it one, as a real terminal has.
  const cli = [...CLI, ...args].map((word) => `'${word}'`).join(" ");
  const command = `stty cols 100 rows 30; ${cli}`;
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qec", command, "/dev/null"], {
      env: { PATH: process.env.PATH, TERM: "xterm-256color", ...env },
      stdio: ["pipe", "pipe", "inherit"],
      // Never leave a CLI behind on a terminal if a test goes wrong.
      timeout: 20_000,
      killSignal: "SIGKILL",
    });
    let screen = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      screen += chunk;
      if (input && screen.includes(input.prompt)) {
        child.stdin.end(input.typed);
        input = undefined;
      }
    });
    if (!input) child.stdin.end();
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, screen }));
  });
}

describe("on a terminal", () => {
  it("prints a table with a bold header and coloured status", async () => {
    const run = await onTerminal(["list", "--limit", "2"], {
      PETSTORE_BASE_URL: server.url,
      PETSTORE_API_KEY: PRO_KEY,
      PETSTORE_CONFIG_DIR: home.path,
    });
    expect(run.code).toBe(0);
    expect(run.screen).toContain(`${ESC}[1mID${ESC}[22m`);
    expect(run.screen).toMatch(new RegExp(`${ESC}\\[(32|33|2)m(available|pending|sold)`));
    expect(run.screen).not.toContain("\t");
    // A full page on a terminal: stderr says it may not be all.
    expect(run.screen).toContain("showing the first 2 pets; `--limit 100` shows up to 100");
  });

  it("asks for the key with a prompt that does not echo it, checks it and says what it is for", async () => {
    const key = PRO_KEY;
    const configDir = `${home.path}/prompted`;
    const run = await onTerminal(
      ["auth", "login", "--base-url", server.url],
      { PETSTORE_CONFIG_DIR: configDir },
      {
        prompt: "API key (input hidden): ",
        typed: `${key}\r`,
      },
    );
    expect(run.code).toBe(0);
    expect(run.screen).toContain("Profile:     default");
    expect(run.screen).toContain("Environment: production");
    expect(run.screen).toContain(`Base URL:    ${server.url}`);
    expect(run.screen).toMatch(
      /The service accepted the key\. Rate limit: \d+ of 300 requests left this minute; resets in \d+ s/,
    );
    expect(run.screen).toContain(
      `Stored the API key and the base URL ${server.url} in profile default`,
    );
    expect(run.screen).not.toContain(key);
    const status = await onTerminal(["profile", "show", "--json"], {
      PETSTORE_CONFIG_DIR: configDir,
    });
    expect(status.screen).toContain('"apiKey": "…6789"');
  });

  it("exits 130 on Ctrl-C at the hidden prompt, storing nothing and sending nothing", async () => {
    const configDir = `${home.path}/interrupted`;
    const before = server.stats().responses;
    const run = await onTerminal(
      ["auth", "login", "--base-url", server.url],
      { PETSTORE_CONFIG_DIR: configDir },
      { prompt: "API key (input hidden): ", typed: "typed-half\u0003" },
    );
    expect(run.code).toBe(130);
    expect(run.screen).toContain("interrupted; no key was stored");
    expect(run.screen).not.toContain("typed-half");
    expect(existsSync(`${configDir}/config.json`)).toBe(false);
    expect(server.stats().responses).toBe(before);
  });

  it("shows a spinner while a retry waits, then leaves the notice as a line", async () => {
    const env = {
      PETSTORE_BASE_URL: failing.url,
      PETSTORE_API_KEY: PRO_KEY,
      PETSTORE_CONFIG_DIR: home.path,
    };
    const run = await onTerminal(["list", "--max-retries", "1"], env);
    expect(run.code).toBe(6);
    expect(run.screen).toMatch(SPINNER_FRAMES);
    // Retry-After: 1 and the 250 ms margin.
    expect(run.screen).toContain("service unavailable; retrying in 1.3 s, attempt 2 of 2");
    expect(run.screen).toMatch(/error:.*503/);

    const inCi = await onTerminal(["list", "--max-retries", "1"], { ...env, CI: "true" });
    expect(inCi.code).toBe(6);
    expect(inCi.screen).not.toMatch(SPINNER_FRAMES);
    expect(inCi.screen).toContain("service unavailable; retrying in 1.3 s, attempt 2 of 2\r\n");
  });
});
