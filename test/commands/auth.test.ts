import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { errorAnswer, jsonAnswer } from "./http-stubs.js";
import { BASE_URL, cliForEachTest } from "./run-cli.js";

const KEY = "psk_live_abcdefghijklmnop1234";
const NO_KEY_ENV = { PETSTORE_API_KEY: undefined, PETSTORE_BASE_URL: undefined };

const cli = cliForEachTest();

function storedConfig() {
  return JSON.parse(readFileSync(join(cli.configDir, "config.json"), "utf8"));
}

describe("petstore auth login", () => {
  it("reads the key from stdin with --with-token and stores it in a 0600 file", async () => {
    const run = await cli.run(["auth", "login", "--with-token", "--profile", "ci"], {
      stdin: `${KEY}\n`,
      env: NO_KEY_ENV,
    });
    expect(run.code).toBe(0);
    expect(run.err).toContain("Stored the API key in profile ci (production)");
    expect(run.err + run.out).not.toContain(KEY);
    expect(storedConfig()).toEqual({ currentProfile: "ci", profiles: { ci: { apiKey: KEY } } });
    expect(statSync(join(cli.configDir, "config.json")).mode & 0o777).toBe(0o600);
  });

  it("asks with a hidden prompt on a terminal, and stores the environment and its address", async () => {
    const run = await cli.run(
      ["auth", "login", "--env", "staging", "--base-url", "http://127.0.0.1:4010/v1/"],
      { stdinTTY: true, hiddenAnswers: [KEY], env: NO_KEY_ENV },
    );
    expect(run.code).toBe(0);
    expect(run.io.prompts).toEqual(["API key (input hidden): "]);
    expect(storedConfig().profiles.default).toEqual({
      apiKey: KEY,
      env: "staging",
      baseUrls: { staging: "http://127.0.0.1:4010/v1" },
    });
  });

  it("reads the key from --api-key-file, keeping the profile's other settings", async () => {
    const file = join(cli.configDir, "key.txt");
    writeFileSync(file, `${KEY}\n`);
    await cli.run(["auth", "login", "--with-token", "--env", "staging"], {
      stdin: "old-key-1234567890",
    });
    const run = await cli.run(["auth", "login", "--api-key-file", file]);
    expect(run.code).toBe(0);
    expect(storedConfig().profiles.default).toEqual({ apiKey: KEY, env: "staging" });
  });

  it.each([
    [[], {}, /no API key given and stdin is not a terminal/],
    [["--with-token"], { stdin: "  \n" }, /the API key is empty/],
    [["--with-token"], { stdin: "two words" }, /contains spaces or control characters/],
    [
      ["--with-token", "--api-key-file", "k"],
      {},
      /--with-token reads the key from stdin; it conflicts with --api-key-file/,
    ],
    [["--env", "prod", "--with-token"], { stdin: KEY }, /--env must be one of production, staging/],
    [
      ["--base-url", "ftp://x", "--with-token"],
      { stdin: KEY },
      /--base-url must use http:\/\/ or https:\/\//,
    ],
    [["--profile", "../x", "--with-token"], { stdin: KEY }, /--profile must be a profile name/],
  ])("refuses %j with exit 2 and writes nothing", async (flags, io, message) => {
    const run = await cli.run(["auth", "login", ...flags], io);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(message);
    expect(() => storedConfig()).toThrow();
  });

  it("says where it stored the key", async () => {
    const run = await cli.run(["auth", "login", "--with-token"], { stdin: KEY, env: NO_KEY_ENV });
    expect(run.code).toBe(0);
    expect(run.err).toBe(
      `Stored the API key in profile default (production) in ${join(cli.configDir, "config.json")}. \`petstore auth status\` checks it.\n`,
    );
  });

  it.each([
    ["1234567", /the API key is 7 characters long; a key has at least 8/],
    ["k", /the API key is 1 characters long/],
    ["abcd\tefgh", /contains spaces or control characters/],
    ["abcd efgh", /contains spaces or control characters/],
  ])("refuses the key %j with exit 2 and writes nothing", async (key, message) => {
    const run = await cli.run(["auth", "login", "--with-token"], { stdin: `${key}\n` });
    expect(run.code).toBe(2);
    expect(run.err).toMatch(message);
    expect(() => storedConfig()).toThrow();
  });

  it("accepts a key of 8 characters, with white space around it", async () => {
    const run = await cli.run(["auth", "login", "--with-token"], { stdin: "  12345678 \r\n" });
    expect(run.code).toBe(0);
    expect(storedConfig().profiles.default.apiKey).toBe("12345678");
  });

  it("reads 4096 bytes of key input, and refuses one byte more", async () => {
    const fits = await cli.run(["auth", "login", "--with-token"], {
      stdin: `${"k".repeat(4095)}\n`,
    });
    expect(fits.code).toBe(0);
    expect(storedConfig().profiles.default.apiKey).toBe("k".repeat(4095));
    const file = join(cli.configDir, "key.txt");
    writeFileSync(file, "k".repeat(4097));
    for (const run of [
      await cli.run(["auth", "login", "--with-token"], { stdin: `${"k".repeat(4096)}\n` }),
      await cli.run(["auth", "login", "--api-key-file", file]),
    ]) {
      expect(run.code).toBe(2);
      expect(run.err).toContain("the API key is longer than 4096 bytes");
    }
    writeFileSync(file, "k".repeat(4096));
    const fileFits = await cli.run(["auth", "login", "--api-key-file", file]);
    expect(fileFits.code).toBe(0);
  });

  it("has no flag that takes the key itself", async () => {
    const run = await cli.run(["auth", "login", "--api-key", KEY]);
    expect(run.code).toBe(2);
    expect(run.err).toContain("unknown option '--api-key'");
  });
});

describe("petstore auth status", () => {
  it("shows where each setting comes from, the key redacted, and the rate limit", async () => {
    await cli.run(["auth", "login", "--with-token"], { stdin: KEY });
    cli.stubs.on(
      "GET /pets?limit=1",
      jsonAnswer(200, "[]", {
        "x-ratelimit-limit": "60",
        "x-ratelimit-remaining": "42",
        "x-ratelimit-reset": String(Date.UTC(2030, 10, 5, 0, 1) / 1000),
      }),
    );
    const run = await cli.run(["auth", "status", "--env", "staging"], {
      env: { PETSTORE_API_KEY: undefined },
    });
    expect(run.code).toBe(0);
    expect(run.out).toBe(
      [
        "Profile:     default (the current profile)",
        "Environment: staging (from --env)",
        `Base URL:    ${BASE_URL} (from PETSTORE_BASE_URL)`,
        "API key:     psk_…1234 (from profile default)",
        "Key:         accepted",
        "Rate limit:  42 of 60 requests left; resets at 2030-11-05T00:01:00Z (in 60 s)",
        "",
      ].join("\n"),
    );
    expect(cli.stubs.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it("exits 3 when the key is rejected, after showing what was used", async () => {
    cli.stubs.on("GET /pets?limit=1", errorAnswer(401, "unauthorized", "the API key is not valid"));
    const run = await cli.run(["auth", "status"]);
    expect(run.code).toBe(3);
    expect(run.out).toContain("Key:         rejected by the service (401)");
    expect(run.out).toContain("Rate limit:  59 of 60 requests left");
    expect(run.err).toContain("error: ");
  });

  it("exits 3 without a request when there is no key", async () => {
    const run = await cli.run(["auth", "status"], { env: { PETSTORE_API_KEY: undefined } });
    expect(run.code).toBe(3);
    expect(run.out).toContain("API key:     none");
    expect(cli.stubs.requests).toHaveLength(0);
  });
});

describe("petstore auth logout", () => {
  it("removes the key and keeps the rest of the profile", async () => {
    await cli.run(["auth", "login", "--with-token", "--env", "staging"], { stdin: KEY });
    const run = await cli.run(["auth", "logout"]);
    expect(run.code).toBe(0);
    expect(run.err).toBe("Removed the API key of profile default.\n");
    expect(storedConfig().profiles.default).toEqual({ env: "staging" });
    const again = await cli.run(["auth", "logout"]);
    expect(again.code).toBe(0);
    expect(again.err).toBe("profile default has no stored key; nothing to remove\n");
  });
});
