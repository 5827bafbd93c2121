/**
 * A config file that cannot be used stops only the runs that need it: with the
 * base URL and the key from flags and environment it is a warning; otherwise an
 * error whose hint (`petstore auth login`) works, keeping the old file as .bak.
 */
import { chmodSync, existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonAnswer } from "./http-stubs.js";
import { cliForEachTest } from "./run-cli.js";

const KEY = "psk_live_abcdefghijklmnop1234";
const BROKEN = '{"profiles": {"work": {"apiKey": "psk_live_secret_in_file"';
const NO_KEY = { PETSTORE_API_KEY: undefined };
const NOTHING_FROM_ENV = { PETSTORE_API_KEY: undefined, PETSTORE_BASE_URL: undefined };

const cli = cliForEachTest();
const configFile = () => join(cli.configDir, "config.json");

describe("a config file that is not JSON", () => {
  it("is a warning when flags and environment give the base URL and the key", async () => {
    writeFileSync(configFile(), "{");
    cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, "[]"));
    const run = await cli.run(["list"]);
    expect(run.code).toBe(0);
    expect(run.err).toBe(
      `warning: the config file ${configFile()} is not valid JSON (it ends too early, at line 1); this run does not need it (flags and environment give the base URL and the key)\n`,
    );
  });

  it("is an error when the run could take the key from it, and never shows its text", async () => {
    writeFileSync(configFile(), BROKEN);
    const run = await cli.run(["list"], { env: NO_KEY });
    expect(run.code).toBe(2);
    expect(run.err).toContain(`error: the config file ${configFile()} is not valid JSON`);
    expect(run.err).toContain("hint: fix it, or replace it with `petstore auth login`");
    expect(run.err).not.toContain("psk_live");
  });

  it("is an error when a profile is named", async () => {
    writeFileSync(configFile(), "{");
    const run = await cli.run(["list", "--profile", "work"]);
    expect(run.code).toBe(2);
    expect(run.err).toContain("is not valid JSON");
  });

  it("is replaced by the hint's command, auth login, which keeps it as config.json.bak", async () => {
    writeFileSync(configFile(), BROKEN);
    const refused = await cli.run(["profile", "list"]);
    expect(refused.code).toBe(2);
    const login = await cli.run(
      ["auth", "login", "--no-verify", "--with-token", "--profile", "ci"],
      {
        stdin: `${KEY}\n`,
        env: NOTHING_FROM_ENV,
      },
    );
    expect(login.code).toBe(0);
    expect(login.err).toContain(
      `warning: the config file ${configFile()} is not valid JSON (it ends too early, at line 1); kept it as ${configFile()}.bak and wrote a new one\n` +
        `Stored the API key in profile ci (production) in ${configFile()}, not in a system keyring: `,
    );
    expect(readFileSync(`${configFile()}.bak`, "utf8")).toBe(BROKEN);
    expect(JSON.parse(readFileSync(configFile(), "utf8"))).toEqual({
      currentProfile: "ci",
      profiles: { ci: { apiKey: KEY } },
    });
    const after = await cli.run(["profile", "list", "--json"], { env: NOTHING_FROM_ENV });
    expect(after.code).toBe(0);
  });

  it.each([[["auth", "logout"]], [["profile", "use", "work"]], [["profile", "remove", "work"]]])(
    "stops %j, which needs the stored profiles, and leaves the file as it was",
    async (argv) => {
      writeFileSync(configFile(), BROKEN);
      const run = await cli.run(argv);
      expect(run.code).toBe(2);
      expect(run.err).toMatch(/^error: the config file .* is not valid JSON/);
      expect(run.err).not.toContain("warning");
      expect(readFileSync(configFile(), "utf8")).toBe(BROKEN);
    },
  );
});

describe("a config file of 0 bytes", () => {
  it("is an empty config", async () => {
    writeFileSync(configFile(), "");
    const run = await cli.run(["profile", "list"], { env: NOTHING_FROM_ENV, stdoutTTY: true });
    expect(run.code).toBe(0);
    expect(run.err).toBe("no profiles stored; `petstore auth login` creates one\n");
  });
});

describe("a config file that is not safe to use", () => {
  it("is never replaced by auth login, which stops before reading the key", async () => {
    const target = join(cli.configDir, "elsewhere.json");
    writeFileSync(target, BROKEN);
    symlinkSync(target, configFile());
    const login = await cli.run(["auth", "login", "--with-token"], {
      stdin: KEY,
      env: NOTHING_FROM_ENV,
    });
    expect(login.code).toBe(2);
    expect(login.err).toContain(`the config file ${configFile()} is a symbolic link`);
    expect(readFileSync(target, "utf8")).toBe(BROKEN);
    expect(existsSync(`${configFile()}.bak`)).toBe(false);
  });
});

describe("a config file that other users can read", () => {
  const stored = JSON.stringify({ currentProfile: "work", profiles: { work: { apiKey: KEY } } });

  it.each([
    ["0644", 0o644],
    ["0640", 0o640],
    ["0604", 0o604],
  ])(
    "works, and warns that mode %s exposes its keys, saying how to make it private",
    async (octal, mode) => {
      writeFileSync(configFile(), stored, { mode });
      chmodSync(configFile(), mode);
      cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, "[]"));
      const run = await cli.run(["list"], { env: NO_KEY });
      expect(run.code).toBe(0);
      expect(cli.stubs.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(run.err).toBe(
        `warning: the config file ${configFile()} can be read by other users (mode ${octal}), and it holds API keys; \`chmod 600 ${configFile()}\` makes it private\n`,
      );
    },
  );

  it("warns only while the file is readable and holds keys", async () => {
    cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, "[]"), 3);
    writeFileSync(configFile(), stored);
    chmodSync(configFile(), 0o644);
    expect((await cli.run(["list"], { env: NO_KEY })).err).toContain("can be read by other users");
    chmodSync(configFile(), 0o600);
    expect((await cli.run(["list"], { env: NO_KEY })).err).toBe("");
    writeFileSync(configFile(), JSON.stringify({ profiles: { work: {} } }));
    chmodSync(configFile(), 0o644);
    expect((await cli.run(["list"])).err).toBe("");
  });

  it("stops warning once a command has written the file anew, private", async () => {
    writeFileSync(configFile(), stored);
    chmodSync(configFile(), 0o644);
    const before = await cli.run(["profile", "show", "work"]);
    expect(before.err).toContain("can be read by other users");
    const use = await cli.run(["profile", "use", "work"]);
    expect(use.code).toBe(0);
    expect(use.err).not.toContain("other users");
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
  });
});
