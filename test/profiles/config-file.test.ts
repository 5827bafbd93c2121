import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  configDir,
  configPath,
  readConfig,
  type StoredConfig,
  updateConfig,
} from "../../src/profiles/config-file.js";
import { UsageError } from "../../src/errors.js";

let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "petstore-config-"));
  env = { PETSTORE_CONFIG_DIR: join(dir, "petstore") };
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe("configDir", () => {
  it.each<[string, NodeJS.ProcessEnv, string]>([
    [
      "PETSTORE_CONFIG_DIR first",
      { PETSTORE_CONFIG_DIR: "/tmp/x", XDG_CONFIG_HOME: "/xdg", HOME: "/home/u" },
      "/tmp/x",
    ],
    [
      "then an absolute XDG_CONFIG_HOME",
      { XDG_CONFIG_HOME: "/xdg", HOME: "/home/u" },
      "/xdg/petstore",
    ],
    [
      "a relative XDG_CONFIG_HOME is ignored",
      { XDG_CONFIG_HOME: "xdg", HOME: "/home/u" },
      "/home/u/.config/petstore",
    ],
    [
      "an empty PETSTORE_CONFIG_DIR is unset",
      { PETSTORE_CONFIG_DIR: "", HOME: "/home/u" },
      "/home/u/.config/petstore",
    ],
  ])("%s", (_name, variables, expected) => {
    expect(configDir(variables)).toBe(expected);
  });

  it("makes a relative PETSTORE_CONFIG_DIR absolute", () => {
    expect(configDir({ PETSTORE_CONFIG_DIR: "conf" })).toBe(join(process.cwd(), "conf"));
  });

  it.each<[string, NodeJS.ProcessEnv]>([
    ["unset", {}],
    ["empty", { HOME: "" }],
    ["relative", { HOME: "." }],
  ])(
    "with HOME %s, uses the home directory of the account, never the working directory",
    (_name, variables) => {
      expect(configDir(variables)).toBe(join(userInfo().homedir, ".config", "petstore"));
    },
  );
});

describe("readConfig", () => {
  it("reads a missing file as no profiles", () => {
    expect(readConfig(env)).toEqual({ profiles: {} });
  });

  it.each([
    ["0 bytes", ""],
    ["only white space", " \n\t\n"],
  ])("reads a file of %s as no profiles", async (_name, text) => {
    await updateConfig(env, () => {});
    writeFileSync(configPath(env), text);
    expect(readConfig(env)).toEqual({ profiles: {} });
  });

  it("reads a file that starts with a byte order mark", async () => {
    await updateConfig(env, () => {});
    writeFileSync(configPath(env), '\uFEFF{"profiles":{"work":{}}}');
    expect(readConfig(env)).toEqual({ profiles: { work: {} } });
  });

  it.each([
    ["{", "is not valid JSON (it ends too early, at line 1)"],
    [
      '{\n  "profiles": {\n    "work": { "apiKey": "psk_live_secret_123" },,\n',
      "is not valid JSON (line 3, column 49)",
    ],
    ["psk_live_secret_123", "is not valid JSON (line 1, column 1)"],
    ['{"profiles": {}} psk_live_secret_123', "is not valid JSON (line 1, column 18)"],
    // An unterminated string: where it starts.
    ['{"apiKey": "psk_live_secret_123', "is not valid JSON (line 1, column 12)"],
  ])("says where %j breaks, and never shows the file's text", async (text, problem) => {
    await updateConfig(env, () => {});
    writeFileSync(configPath(env), text);
    const error = (() => {
      try {
        readConfig(env);
      } catch (e) {
        return e as UsageError;
      }
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect(error?.message).toBe(`the config file ${configPath(env)} ${problem}`);
    expect(error?.hint).toBe(
      "fix it, or replace it with `petstore auth login` (which keeps the old file as config.json.bak)",
    );
    expect(`${error?.message} ${error?.hint}`).not.toMatch(/psk|secret/);
  });

  it("refuses a file larger than 1 MiB without parsing it", async () => {
    await updateConfig(env, () => {});
    writeFileSync(configPath(env), `{"profiles":{}}${" ".repeat(1024 * 1024)}`);
    expect(() => readConfig(env)).toThrow(
      `the config file ${configPath(env)} is larger than 1 MiB: it is not a petstore config file`,
    );
  });

  it("names the file when it is not JSON", async () => {
    await updateConfig(env, () => {});
    writeFileSync(configPath(env), "{ not json");
    const error = (() => {
      try {
        readConfig(env);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain(configPath(env));
    expect((error as UsageError).exitCode).toBe(2);
  });

  it("names the value that is wrong", async () => {
    await updateConfig(env, () => {});
    writeFileSync(
      configPath(env),
      JSON.stringify({ profiles: { work: { env: "prod" }, "bad name": {} } }),
    );
    expect(() => readConfig(env)).toThrow(
      `the config file ${configPath(env)} has invalid values at profiles.work.env, profiles.bad name`,
    );
  });

  it("ignores keys it does not know", async () => {
    await updateConfig(env, () => {});
    writeFileSync(
      configPath(env),
      JSON.stringify({ __internal__: { x: 1 }, profiles: { work: { apiKey: "k", extra: 1 } } }),
    );
    expect(readConfig(env)).toEqual({ profiles: { work: { apiKey: "k" } } });
  });
});

describe("updateConfig", () => {
  const work: StoredConfig = {
    currentProfile: "work",
    profiles: {
      work: {
        apiKey: "psk_live_4f9a8b7c6d5e4f3a2b1c",
        env: "staging",
        baseUrls: { staging: "http://127.0.0.1:4010/v1" },
      },
    },
  };

  it("creates the file with mode 0600 in a directory with mode 0700", async () => {
    const written = await updateConfig(env, () => work);
    expect(written).toEqual({ path: configPath(env), config: work });
    expect(modeOf(configPath(env))).toBe(0o600);
    expect(modeOf(configDir(env))).toBe(0o700);
    expect(readConfig(env)).toEqual(work);
  });

  it("writes JSON that a plain JSON.parse reads (the read path does not load conf)", async () => {
    await updateConfig(env, () => work);
    expect(JSON.parse(readFileSync(configPath(env), "utf8"))).toEqual(work);
  });

  it("puts a file that was readable by others back to 0600", async () => {
    await updateConfig(env, () => work);
    chmodSync(configPath(env), 0o644);
    await updateConfig(env, (config) => {
      config.currentProfile = "work";
    });
    expect(modeOf(configPath(env))).toBe(0o600);
  });

  it("applies changes made in place, on top of what is stored", async () => {
    await updateConfig(env, () => work);
    const after = await updateConfig(env, (config) => {
      config.profiles.home = { apiKey: "psk_home_000000000000000000" };
      delete config.profiles.work?.baseUrls;
    });
    const expected = {
      currentProfile: "work",
      profiles: {
        work: { apiKey: "psk_live_4f9a8b7c6d5e4f3a2b1c", env: "staging" },
        home: { apiKey: "psk_home_000000000000000000" },
      },
    };
    expect(after.config).toEqual(expected);
    expect(readConfig(env)).toEqual(expected);
  });

  it("does not carry changes from one read into the next", async () => {
    await updateConfig(env, () => {});
    writeFileSync(configPath(env), "{}");
    readConfig(env).profiles.ghost = {};
    expect(readConfig(env)).toEqual({ profiles: {} });
  });
});
