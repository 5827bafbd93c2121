/**
 * The config file holds keys, so petstore refuses one that someone else could
 * have planted or could change (as ssh does for its keys): a symbolic link, a
 * file owned by another user, a file or directory writable by others, anything
 * but a regular file. Real files in a temporary directory; tests run as root,
 * so "another user" is uid 12345 by chown.
 */
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UsageError } from "../../src/errors.js";
import { configPath, readConfig, updateConfig } from "../../src/profiles/config-file.js";

const OTHER_UID = 12345;
const KEY = "psk_live_4f9a8b7c6d5e4f3a2b1c";
const STORED = JSON.stringify({ profiles: { work: { apiKey: KEY } } });

let dir: string;
let configDir: string;
let env: NodeJS.ProcessEnv;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "petstore-config-safety-"));
  configDir = join(dir, "petstore");
  mkdirSync(configDir, { mode: 0o700 });
  env = { PETSTORE_CONFIG_DIR: configDir };
  file = configPath(env);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function failure(action: () => unknown): UsageError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error("expected a UsageError");
}

async function writeFailure(): Promise<UsageError> {
  const error = await updateConfig(env, (config) => {
    config.profiles.new = { apiKey: KEY };
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  return error as UsageError;
}

describe("a symbolic link as config.json", () => {
  it("is refused for reading and writing, and its target is left as it was", async () => {
    const decoy = join(dir, "package.json");
    const decoyText = '{ "name": "my-project", "version": "1.0.0" }\n';
    writeFileSync(decoy, decoyText);
    symlinkSync(decoy, file);
    const read = failure(() => readConfig(env));
    expect(read.exitCode).toBe(2);
    expect(read.message).toBe(`the config file ${file} is a symbolic link (to ${decoy})`);
    const write = await writeFailure();
    expect(write.message).toBe(read.message);
    expect(readFileSync(decoy, "utf8")).toBe(decoyText);
    expect(readlinkSync(file)).toBe(decoy);
    expect(readdirSync(configDir)).toEqual(["config.json"]);
  });

  it("is refused even when it points at a valid config", async () => {
    const real = join(dir, "real.json");
    writeFileSync(real, STORED, { mode: 0o600 });
    symlinkSync(real, file);
    expect(failure(() => readConfig(env)).message).toContain("is a symbolic link");
    await writeFailure();
    expect(readFileSync(real, "utf8")).toBe(STORED);
  });
});

describe("a config.json owned by another user", () => {
  it("is refused, naming the file and its owner, and left as it was", async () => {
    writeFileSync(file, STORED, { mode: 0o600 });
    chownSync(file, OTHER_UID, OTHER_UID);
    const read = failure(() => readConfig(env));
    expect(read.exitCode).toBe(2);
    expect(read.message).toBe(
      `the config file ${file} is owned by uid ${OTHER_UID}, not by you (uid ${process.getuid?.()})`,
    );
    expect(read.hint).toContain(`chown ${process.getuid?.()} ${file}`);
    const write = await writeFailure();
    expect(write.message).toBe(read.message);
    expect(readFileSync(file, "utf8")).toBe(STORED);
    expect(statSync(file).uid).toBe(OTHER_UID);
    expect(readdirSync(configDir)).toEqual(["config.json"]);
  });
});

describe("permissions that let others change the file", () => {
  it("refuses a config.json writable by others, with the chmod that fixes it", async () => {
    writeFileSync(file, STORED);
    chmodSync(file, 0o666);
    const read = failure(() => readConfig(env));
    expect(read.message).toBe(`the config file ${file} is writable by other users (mode 0666)`);
    expect(read.hint).toContain(`chmod 600 ${file}`);
    await writeFailure();
    expect(readFileSync(file, "utf8")).toBe(STORED);
    chmodSync(file, 0o600);
    expect(readConfig(env).profiles.work?.apiKey).toBe(KEY);
  });

  it.each(["0777", "0770", "1777", "0722"])(
    "refuses a config directory with mode %s",
    async (mode) => {
      writeFileSync(file, STORED, { mode: 0o600 });
      chmodSync(configDir, Number.parseInt(mode, 8));
      const read = failure(() => readConfig(env));
      expect(read.message).toBe(
        `the config directory ${configDir} is writable by other users (mode ${mode})`,
      );
      expect(read.hint).toContain(`chmod 700 ${configDir}`);
      await writeFailure();
      expect(readFileSync(file, "utf8")).toBe(STORED);
    },
  );

  it("refuses a config directory owned by another user, even before the file exists", async () => {
    chownSync(configDir, OTHER_UID, OTHER_UID);
    await writeFailure();
    expect(readdirSync(configDir)).toEqual([]);
    writeFileSync(file, STORED, { mode: 0o600 });
    expect(failure(() => readConfig(env)).message).toBe(
      `the config directory ${configDir} is owned by uid ${OTHER_UID}, not by you (uid ${process.getuid?.()})`,
    );
  });

  it("accepts a directory whose parent is a link (a dotfiles checkout)", async () => {
    const linked = join(dir, "linked");
    symlinkSync(configDir, linked);
    const linkedEnv = { PETSTORE_CONFIG_DIR: linked };
    await updateConfig(linkedEnv, (config) => {
      config.profiles.work = { apiKey: KEY };
    });
    expect(readConfig(linkedEnv).profiles.work?.apiKey).toBe(KEY);
    expect(lstatSync(file).isFile()).toBe(true);
  });
});

describe("what is not a regular file", () => {
  it("refuses a directory named config.json", async () => {
    mkdirSync(file);
    expect(failure(() => readConfig(env)).message).toBe(
      `the config file ${file} is a directory, not a regular file`,
    );
    await writeFailure();
    expect(statSync(file).isDirectory()).toBe(true);
  });
});

describe("a write", () => {
  it("creates a 0600 file owned by the writer and leaves no temporary file or lock", async () => {
    await updateConfig(env, (config) => {
      config.profiles.work = { apiKey: KEY };
    });
    expect(readdirSync(configDir)).toEqual(["config.json"]);
    const stat = lstatSync(file);
    expect(stat.isFile()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o600);
    expect(stat.uid).toBe(process.getuid?.());
  });

  it("replaces the file (a new inode), so a hard link elsewhere never receives the key", async () => {
    writeFileSync(file, "{}", { mode: 0o600 });
    const elsewhere = join(dir, "elsewhere.json");
    rmSync(elsewhere, { force: true });
    // A second name for the same file, as someone who could write here might make.
    (await import("node:fs")).linkSync(file, elsewhere);
    await updateConfig(env, (config) => {
      config.profiles.work = { apiKey: KEY };
    });
    expect(readFileSync(elsewhere, "utf8")).toBe("{}");
    expect(readConfig(env).profiles.work?.apiKey).toBe(KEY);
  });
});
