/**
 * `auth login --with-token` and `--api-key-file` read at most 4 KiB: endless input
 * (a device that never ends, a pipe fed forever) is refused at once, not read forever.
 */
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BIN } from "../server/cli-build.js";
import { spawnCli } from "../profiles/spawn-cli.js";

let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "petstore-key-input-"));
  env = { PETSTORE_CONFIG_DIR: join(dir, "config") };
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const TOO_LONG = "the API key is longer than 4096 bytes";

describe("a key that never ends", () => {
  it("refuses /dev/zero as stdin after 4 KiB", async () => {
    // Reading /dev/zero is harmless: it is only ever read here.
    const zero = openSync("/dev/zero", "r");
    try {
      const run = await spawnCli(["auth", "login", "--with-token"], {
        env,
        stdin: zero,
        timeoutMs: 15_000,
      });
      expect(run.killed).toBe(false);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(TOO_LONG);
    } finally {
      closeSync(zero);
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it("refuses a pipe fed forever, and stops reading it", async () => {
    const child = spawn(process.execPath, [BIN, "auth", "login", "--with-token"], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const chunk = Buffer.alloc(64 * 1024, "k");
    let written = 0;
    let open = true;
    child.stdin.on("error", () => (open = false));
    const feed = () => {
      while (open && written < 1024 * 1024 * 1024) {
        written += chunk.length;
        if (!child.stdin.write(chunk)) return void child.stdin.once("drain", feed);
      }
    };
    feed();
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    clearTimeout(timer);
    open = false;
    expect(code).toBe(2);
    expect(stderr).toContain(TOO_LONG);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("refuses /dev/zero as --api-key-file after 4 KiB", async () => {
    const run = await spawnCli(["auth", "login", "--api-key-file", "/dev/zero"], {
      env,
      timeoutMs: 15_000,
    });
    expect(run.killed).toBe(false);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(TOO_LONG);
  });

  it("names why an --api-key-file cannot be read, in words", async () => {
    const missing = join(dir, "no-such-key.txt");
    const run = await spawnCli(["auth", "login", "--api-key-file", missing], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--api-key-file ${missing} cannot be read (no such file)`);
  });
});
