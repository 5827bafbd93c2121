/**
 * The config's lock (config.json.lock, holding the writer's pid): a writer waits
 * for a live holder, and takes over a lock left by a process that is gone, one
 * without a pid, or one older than any write.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configPath, readConfig, updateConfig } from "../../src/profiles/config-file.js";

let dir: string;
let env: NodeJS.ProcessEnv;
let lock: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "petstore-config-lock-"));
  mkdirSync(join(dir, "petstore"), { mode: 0o700 });
  env = { PETSTORE_CONFIG_DIR: join(dir, "petstore") };
  lock = `${configPath(env)}.lock`;
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const addWork = () =>
  updateConfig(env, (config) => {
    config.profiles.work = { apiKey: "psk_live_0123456789" };
  });

/** The pid of a process that has exited. */
function deadPid(): number {
  return Number(execFileSync("sh", ["-c", "echo $$"], { encoding: "utf8" }).trim());
}

describe("the config lock", () => {
  it("waits while a live process holds it", async () => {
    // The test runner's parent process is alive for the whole test.
    writeFileSync(lock, `${process.ppid}\n`);
    let done = false;
    const update = addWork().then(() => (done = true));
    await sleep(300);
    expect(done).toBe(false);
    expect(existsSync(configPath(env))).toBe(false);
    unlinkSync(lock);
    await update;
    expect(readConfig(env).profiles.work).toBeDefined();
    expect(readdirSync(join(dir, "petstore"))).toEqual(["config.json"]);
  });

  it.each<[string, () => void]>([
    ["of a process that is gone", () => writeFileSync(lock, `${deadPid()}\n`)],
    [
      "without a pid, after a second",
      () => {
        writeFileSync(lock, "");
        utimesSync(lock, new Date(Date.now() - 5_000), new Date(Date.now() - 5_000));
      },
    ],
    [
      "of a live process, but older than any write",
      () => {
        writeFileSync(lock, `${process.ppid}\n`);
        utimesSync(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
      },
    ],
  ])("takes over a lock %s", async (_name, plant) => {
    plant();
    await addWork();
    expect(readConfig(env).profiles.work).toBeDefined();
    expect(readdirSync(join(dir, "petstore"))).toEqual(["config.json"]);
  });
});
