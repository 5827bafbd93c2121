import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { errorAnswer, jsonAnswer } from "./http-stubs.js";
import { NetworkError } from "../../src/errors.js";
import { promptInterrupted } from "../../src/io/hidden-prompt.js";
import { BASE_URL, cliForEachTest } from "./run-cli.js";

const KEY = "psk_live_abcdefghijklmnop1234";
const NO_KEY_ENV = { PETSTORE_API_KEY: undefined, PETSTORE_BASE_URL: undefined };
/** Why these runs keep keys in the file: they are given no D-Bus session (test/e2e/keyring.test.ts has one). */
const NO_BUS = "no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set)";

const cli = cliForEachTest();

function storedConfig() {
  return JSON.parse(readFileSync(join(cli.configDir, "config.json"), "utf8"));
}

describe("petstore auth login", () => {
  it("reads the key from stdin with --with-token and stores it in a 0600 file", async () => {
    const run = await cli.run(["auth", "login", "--no-verify", "--with-token", "--profile", "ci"], {
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
      [
        "auth",
        "login",
        "--no-verify",
        "--env",
        "staging",
        "--base-url",
        "http://127.0.0.1:4010/v1/",
      ],
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
    await cli.run(["auth", "login", "--no-verify", "--with-token", "--env", "staging"], {
      stdin: "old-key-1234567890",
    });
    const run = await cli.run(["auth", "login", "--no-verify", "--api-key-file", file]);
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
    const run = await cli.run(["auth", "login", "--no-verify", ...flags], io);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(message);
    expect(() => storedConfig()).toThrow();
  });

  it("says which profile, environment and base URL the key is for, and where it stored it", async () => {
    const run = await cli.run(["auth", "login", "--no-verify", "--with-token"], {
      stdin: KEY,
      env: NO_KEY_ENV,
    });
    expect(run.code).toBe(0);
    expect(run.err).toBe(
      [
        "Profile:     default (default)",
        "Environment: production (default)",
        "Base URL:    https://api.petstore.example/v1 (default)",
        `Stored the API key in profile default (production) in ${join(cli.configDir, "config.json")}, not in a system keyring: ${NO_BUS}. It was not checked (--no-verify): \`petstore auth status\` checks it.`,
        "",
      ].join("\n"),
    );
  });

  it.each([
    ["1234567", /the API key is 7 characters long; a key has at least 8/],
    ["k", /the API key is 1 characters long/],
    ["abcd\tefgh", /contains spaces or control characters/],
    ["abcd efgh", /contains spaces or control characters/],
  ])("refuses the key %j with exit 2 and writes nothing", async (key, message) => {
    const run = await cli.run(["auth", "login", "--no-verify", "--with-token"], {
      stdin: `${key}\n`,
    });
    expect(run.code).toBe(2);
    expect(run.err).toMatch(message);
    expect(() => storedConfig()).toThrow();
  });

  it("accepts a key of 8 characters, with white space around it", async () => {
    const run = await cli.run(["auth", "login", "--no-verify", "--with-token"], {
      stdin: "  12345678 \r\n",
    });
    expect(run.code).toBe(0);
    expect(storedConfig().profiles.default.apiKey).toBe("12345678");
  });

  it("reads 4096 bytes of key input, and refuses one byte more", async () => {
    const fits = await cli.run(["auth", "login", "--no-verify", "--with-token"], {
      stdin: `${"k".repeat(4095)}\n`,
    });
    expect(fits.code).toBe(0);
    expect(storedConfig().profiles.default.apiKey).toBe("k".repeat(4095));
    const file = join(cli.configDir, "key.txt");
    writeFileSync(file, "k".repeat(4097));
    for (const run of [
      await cli.run(["auth", "login", "--no-verify", "--with-token"], {
        stdin: `${"k".repeat(4096)}\n`,
      }),
      await cli.run(["auth", "login", "--no-verify", "--api-key-file", file]),
    ]) {
      expect(run.code).toBe(2);
      expect(run.err).toContain("the API key is longer than 4096 bytes");
    }
    writeFileSync(file, "k".repeat(4096));
    const fileFits = await cli.run(["auth", "login", "--no-verify", "--api-key-file", file]);
    expect(fileFits.code).toBe(0);
  });

  it("has no flag that takes the key itself", async () => {
    const run = await cli.run(["auth", "login", "--no-verify", "--api-key", KEY]);
    expect(run.code).toBe(2);
    expect(run.err).toContain("unknown option '--api-key'");
  });
});

describe("petstore auth login checks the key", () => {
  const accepted = () =>
    jsonAnswer(200, "[]", {
      "x-ratelimit-limit": "300",
      "x-ratelimit-remaining": "299",
      "x-ratelimit-reset": String(Date.UTC(2030, 10, 5, 0, 1) / 1000),
    });

  it("stores the base URL of PETSTORE_BASE_URL it checked the key against, saying so; a new shell uses it", async () => {
    cli.stubs.on("GET /pets?limit=1", accepted());
    const login = await cli.run(["auth", "login", "--with-token", "--profile", "work"], {
      stdin: KEY,
      env: { PETSTORE_API_KEY: undefined, PETSTORE_ENV: undefined },
    });
    expect(login.code).toBe(0);
    expect(login.err).toMatch(
      new RegExp(
        `Stored the API key and the base URL ${BASE_URL} in profile work \\(production\\) in `,
      ),
    );
    expect(storedConfig().profiles.work).toEqual({
      apiKey: KEY,
      baseUrls: { production: BASE_URL },
    });
    // A new shell: no PETSTORE_BASE_URL, no PETSTORE_API_KEY; the profile has both.
    cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, "[]"));
    const fresh = await cli.run(["list", "--profile", "work"], {
      env: { PETSTORE_BASE_URL: undefined, PETSTORE_API_KEY: undefined },
    });
    expect(fresh.code).toBe(0);
    expect(cli.stubs.requests.at(-1)?.url).toBe(`${BASE_URL}/pets?limit=20`);
    expect(cli.stubs.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it("does not store PETSTORE_BASE_URL with --no-verify, and says so", async () => {
    const run = await cli.run(["auth", "login", "--with-token", "--no-verify"], { stdin: KEY });
    expect(run.code).toBe(0);
    expect(run.err).toContain("note: PETSTORE_BASE_URL is not stored, as the key is not checked");
    expect(storedConfig().profiles.default).toEqual({ apiKey: KEY });
  });

  it("sends one GET /pets?limit=1 with the new key, reports the rate limit, then stores it", async () => {
    cli.stubs.on("GET /pets?limit=1", accepted());
    const run = await cli.run(["auth", "login", "--with-token", "--profile", "ci"], {
      stdin: KEY,
      env: { PETSTORE_API_KEY: "psk_other_key_from_the_environment" },
    });
    expect(run.code).toBe(0);
    expect(cli.stubs.requests).toHaveLength(1);
    expect(cli.stubs.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(run.err).toContain("Profile:     ci (from --profile)\n");
    expect(run.err).toContain(`Base URL:    ${BASE_URL} (from PETSTORE_BASE_URL)\n`);
    expect(run.err).toContain(
      "The service accepted the key. Rate limit: 299 of 300 requests left this minute; resets in 60 s (at 00:01 UTC)\n",
    );
    expect(run.err).toMatch(
      /Stored the API key and the base URL \S+ in profile ci \(production\) in .*config\.json, not in a system keyring: no D-Bus session .*\.\n$/,
    );
    expect(storedConfig().profiles.ci).toEqual({ apiKey: KEY, baseUrls: { production: BASE_URL } });
  });

  it("checks the key against the base URL it stores, before storing anything", async () => {
    const other = "http://127.0.0.1:4011/v1";
    const seen: string[] = [];
    cli.stubs.on("GET /pets?limit=1", (request) => {
      seen.push(request.url);
      return accepted();
    });
    const run = await cli.run(["auth", "login", "--with-token", "--base-url", BASE_URL], {
      stdin: KEY,
      env: { PETSTORE_BASE_URL: other },
    });
    expect(run.code).toBe(0);
    expect(seen).toEqual([`${BASE_URL}/pets?limit=1`]);
    expect(run.err).toContain(`Base URL:    ${BASE_URL} (from --base-url)`);
    expect(storedConfig().profiles.default.baseUrls).toEqual({ production: BASE_URL });
  });

  it("does not store a key the service rejects: exit 3", async () => {
    cli.stubs.on("GET /pets?limit=1", errorAnswer(401, "invalid_key", "the API key is not valid"));
    const run = await cli.run(["auth", "login", "--with-token"], { stdin: KEY });
    expect(run.code).toBe(3);
    expect(run.err).toContain(
      "error: the service rejected the key (401): the service did not accept the API key: 401 Unauthorized: the API key is not valid; it was not stored",
    );
    expect(run.err).not.toContain(KEY);
    expect(() => storedConfig()).toThrow();
  });

  it("keeps the profile's old key when the new one is rejected", async () => {
    await cli.run(["auth", "login", "--with-token", "--no-verify"], {
      stdin: "old-key-1234567890",
    });
    cli.stubs.on("GET /pets?limit=1", errorAnswer(401, "invalid_key", "the API key is not valid"));
    const run = await cli.run(["auth", "login", "--with-token"], { stdin: KEY });
    expect(run.code).toBe(3);
    expect(storedConfig().profiles.default.apiKey).toBe("old-key-1234567890");
  });

  it("does not store a key it could not check (the service unreachable): exit 6, with --no-verify as the way out", async () => {
    const request = { method: "GET", url: `${BASE_URL}/pets?limit=1` };
    const down = new NetworkError(
      "could not connect to 127.0.0.1:9: connection refused",
      request,
      false,
    );
    cli.stubs.on("GET /pets?limit=1", down, 5);
    const run = await cli.run(["auth", "login", "--with-token"], { stdin: KEY });
    expect(run.code).toBe(6);
    expect(run.err).toContain(
      "error: the key could not be checked: could not connect to 127.0.0.1:9: connection refused; it was not stored",
    );
    expect(run.err).toContain("`--no-verify` stores the key without checking it");
    expect(() => storedConfig()).toThrow();
  });

  it("stores the key without a request with --no-verify", async () => {
    const run = await cli.run(["auth", "login", "--with-token", "--no-verify"], { stdin: KEY });
    expect(run.code).toBe(0);
    expect(cli.stubs.requests).toHaveLength(0);
    expect(storedConfig().profiles.default.apiKey).toBe(KEY);
  });

  it("exits 130 and stores nothing on Ctrl-C at the hidden prompt; Ctrl-D is no key (exit 2)", async () => {
    const ctrlC = await cli.run(["auth", "login"], {
      stdinTTY: true,
      hiddenAnswers: [promptInterrupted()],
    });
    expect(ctrlC.code).toBe(130);
    expect(ctrlC.err).toContain("error: interrupted; no key was stored");
    const ctrlD = await cli.run(["auth", "login"], {
      stdinTTY: true,
      hiddenAnswers: [new Error("cancelled")],
    });
    expect(ctrlD.code).toBe(2);
    expect(ctrlD.err).toContain("error: no API key entered");
    expect(cli.stubs.requests).toHaveLength(0);
    expect(() => storedConfig()).toThrow();
  });
});

describe("petstore auth status", () => {
  it("shows where each setting comes from, the key redacted, and the rate limit", async () => {
    await cli.run(["auth", "login", "--no-verify", "--with-token"], { stdin: KEY });
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
        "API key:     psk_…1234 (from profile default, in the config file)",
        "Key:         accepted",
        "Rate limit:  42 of 60 requests left this minute; resets in 60 s (at 00:01 UTC)",
        `Keyring:     none, so the key is in the file: ${NO_BUS}`,
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

  it("gives the same as JSON with --json, the key redacted", async () => {
    await cli.run(["auth", "login", "--with-token", "--no-verify"], { stdin: KEY });
    cli.stubs.on(
      "GET /pets?limit=1",
      jsonAnswer(200, "[]", {
        "x-ratelimit-limit": "1000",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": String(Date.UTC(2030, 10, 6) / 1000),
      }),
    );
    const run = await cli.run(["auth", "status", "--json"], {
      env: { PETSTORE_API_KEY: undefined },
    });
    expect(run.code).toBe(0);
    expect(run.out).not.toContain(KEY);
    expect(JSON.parse(run.out)).toEqual({
      profile: "default",
      env: "production",
      baseUrl: BASE_URL,
      apiKey: "psk_…1234",
      keyStore: "file",
      allowInsecure: false,
      sources: { profile: "profile", env: "default", baseUrl: "environment", apiKey: "profile" },
      proxy: null,
      key: "accepted",
      keyringProblem: NO_BUS,
      rateLimit: {
        limit: 1000,
        remaining: 0,
        resetAt: "2030-11-06T00:00:00.000Z",
        window: "day",
      },
    });
  });

  it("says in JSON that the key was rejected, and still exits 3", async () => {
    cli.stubs.on("GET /pets?limit=1", errorAnswer(401, "invalid_key", "the API key is not valid"));
    const run = await cli.run(["auth", "status", "--json"]);
    expect(run.code).toBe(3);
    const report = JSON.parse(run.out);
    expect(report.key).toBe("rejected");
    expect(report.keyProblem).toMatch(/did not accept the API key/);
    expect(report.apiKey).toBe("psk_…cdef");
    expect(report.rateLimit).toMatchObject({ limit: 60, remaining: 59 });
    expect(run.err).toContain("error: ");
  });

  it("says in JSON that there is no key, without a request", async () => {
    const run = await cli.run(["auth", "status", "--json"], {
      env: { PETSTORE_API_KEY: undefined },
    });
    expect(run.code).toBe(3);
    expect(JSON.parse(run.out)).toMatchObject({ key: "none", apiKey: null });
    expect(cli.stubs.requests).toHaveLength(0);
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
    await cli.run(["auth", "login", "--no-verify", "--with-token", "--env", "staging"], {
      stdin: KEY,
    });
    const run = await cli.run(["auth", "logout"]);
    expect(run.code).toBe(0);
    expect(run.err).toBe("Removed the API key of profile default.\n");
    expect(storedConfig().profiles.default).toEqual({ env: "staging" });
    const again = await cli.run(["auth", "logout"]);
    expect(again.code).toBe(0);
    expect(again.err).toBe("profile default has no stored key; nothing to remove\n");
  });
});
