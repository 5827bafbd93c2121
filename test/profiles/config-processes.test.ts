/**
 * The config file as real processes meet it: several `auth login` at once, a
 * FIFO where the file should be, a directory that cannot be created, no HOME.
 * Each run has a time limit, so a CLI that blocks or spins fails instead of hanging.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawnCli } from "./spawn-cli.js";

const KEY = "psk_live_abcdefghijklmnop1234";
const NO_PETSTORE_ENV = {
  PETSTORE_API_KEY: undefined,
  PETSTORE_BASE_URL: undefined,
  PETSTORE_PROFILE: undefined,
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "petstore-config-proc-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("parallel writers", () => {
  it("keeps every profile when several `auth login` run at once", async () => {
    const ROUNDS = 10;
    const WRITERS = 4;
    for (let round = 0; round < ROUNDS; round++) {
      const configDir = join(dir, `round-${round}`);
      const env = { ...NO_PETSTORE_ENV, PETSTORE_CONFIG_DIR: configDir };
      const runs = await Promise.all(
        Array.from({ length: WRITERS }, (_, n) =>
          spawnCli(["auth", "login", "--no-verify", "--with-token", "--profile", `p${n}`], {
            env,
            stdin: `${KEY}${n}\n`,
          }),
        ),
      );
      for (const run of runs) expect(run.stderr).toContain("Stored the API key");
      const stored = JSON.parse(readFileSync(join(configDir, "config.json"), "utf8"));
      expect(Object.keys(stored.profiles).sort()).toEqual(
        Array.from({ length: WRITERS }, (_, n) => `p${n}`),
      );
      for (let n = 0; n < WRITERS; n++) expect(stored.profiles[`p${n}`].apiKey).toBe(`${KEY}${n}`);
      // The lock and the temporary files are gone once the writers are.
      expect(readdirSync(configDir)).toEqual(["config.json"]);
    }
  });
});

describe("files that are not a config file", () => {
  it("refuses a FIFO as the config file at once, without waiting for a writer", async () => {
    const configDir = join(dir, "config");
    execFileSync("mkdir", ["-m", "700", configDir]);
    execFileSync("mkfifo", ["-m", "600", join(configDir, "config.json")]);
    const run = await spawnCli(["profile", "list"], {
      env: { ...NO_PETSTORE_ENV, PETSTORE_CONFIG_DIR: configDir },
      timeoutMs: 10_000,
    });
    expect(run.killed).toBe(false);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`the config file ${join(configDir, "config.json")} is a FIFO`);
  });

  it("only warns of a FIFO when flags and environment give all a run needs", async () => {
    const configDir = join(dir, "config");
    execFileSync("mkdir", ["-m", "700", configDir]);
    execFileSync("mkfifo", ["-m", "600", join(configDir, "config.json")]);
    const run = await spawnCli(["profile", "show", "--base-url", "http://127.0.0.1:9/v1"], {
      env: { ...NO_PETSTORE_ENV, PETSTORE_API_KEY: KEY, PETSTORE_CONFIG_DIR: configDir },
      timeoutMs: 10_000,
    });
    expect(run.killed).toBe(false);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `warning: the config file ${join(configDir, "config.json")} is a FIFO`,
    );
    expect(run.stdout).toContain("Base URL:");
  });

  it("refuses a PETSTORE_CONFIG_DIR inside /proc before creating anything", async () => {
    const run = await spawnCli(["auth", "login", "--with-token"], {
      env: { ...NO_PETSTORE_ENV, PETSTORE_CONFIG_DIR: "/proc/self/petstore-test" },
      stdin: KEY,
      timeoutMs: 10_000,
    });
    expect(run.killed).toBe(false);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("/proc/self/petstore-test");
    expect(run.stderr).toContain("virtual file system");
  });

  it("refuses a PETSTORE_CONFIG_DIR that is a file, leaving the file as it was", async () => {
    const file = join(dir, "notes.txt");
    writeFileSync(file, "my notes\n");
    for (const configDir of [file, join(file, "petstore")]) {
      const run = await spawnCli(["auth", "login", "--with-token"], {
        env: { ...NO_PETSTORE_ENV, PETSTORE_CONFIG_DIR: configDir },
        stdin: KEY,
        timeoutMs: 10_000,
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`${file} is not a directory`);
      expect(readFileSync(file, "utf8")).toBe("my notes\n");
    }
  });
});

describe("what an earlier writer left", () => {
  it("writes the config past a symlink left at config.json.tmp, never through it", async () => {
    const configDir = join(dir, "config");
    const target = join(dir, "elsewhere");
    mkdirSync(configDir, { mode: 0o700 });
    symlinkSync(target, join(configDir, "config.json.tmp"));
    const run = await spawnCli(["auth", "login", "--no-verify", "--with-token"], {
      env: { ...NO_PETSTORE_ENV, PETSTORE_CONFIG_DIR: configDir },
      stdin: `${KEY}\n`,
      timeoutMs: 10_000,
    });
    expect(run.stderr).not.toContain("serve");
    expect(run.code).toBe(0);
    const stored = JSON.parse(readFileSync(join(configDir, "config.json"), "utf8"));
    expect(stored.profiles.default.apiKey).toBe(KEY);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(configDir).sort()).toEqual(["config.json", "config.json.tmp"]);
  });
});

describe("no HOME", () => {
  // uid 12345 has no passwd entry, so there is no home to fall back to: the CLI
  // must refuse rather than write ./.config/petstore/config.json in the working directory.
  it.each([
    ["unset", { HOME: undefined }],
    ["empty", { HOME: "" }],
  ])(
    "with HOME %s and no passwd home, login refuses and writes nothing in the working directory",
    async (_name, home) => {
      const cwd = join(dir, "checkout");
      execFileSync("mkdir", ["-m", "777", cwd]);
      chmodSync(dir, 0o755);
      const run = await spawnCli(["auth", "login", "--with-token"], {
        env: {
          ...NO_PETSTORE_ENV,
          XDG_CONFIG_HOME: undefined,
          PETSTORE_CONFIG_DIR: undefined,
          ...home,
        },
        cwd,
        uid: 12345,
        stdin: KEY,
        timeoutMs: 10_000,
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("HOME");
      expect(run.stderr).toContain("PETSTORE_CONFIG_DIR");
      expect(run.stderr).not.toContain("unexpected");
      expect(existsSync(join(cwd, ".config"))).toBe(false);
      expect(readdirSync(cwd)).toEqual([]);
    },
  );
});
