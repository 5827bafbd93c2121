import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonAnswer } from "./http-stubs.js";
import { cliContext, type CliContext } from "./run-cli.js";

const NO_ENV = {
  PETSTORE_API_KEY: undefined,
  PETSTORE_BASE_URL: undefined,
  PETSTORE_PROFILE: undefined,
  PETSTORE_ENV: undefined,
};

let cli: CliContext;
beforeEach(async () => {
  cli = cliContext(NO_ENV);
  for (const [profile, key, flags] of [
    ["default", "psk_default_key_000000001", []],
    [
      "ci",
      "psk_ci_key_0000000000000002",
      ["--env", "staging", "--base-url", "http://127.0.0.1:4010/v1"],
    ],
  ] as const) {
    const run = await cli.run(
      ["auth", "login", "--no-verify", "--with-token", "--profile", profile, ...flags],
      {
        stdin: key,
      },
    );
    expect(run.code).toBe(0);
  }
});
afterEach(() => {
  cli.stubs.verify();
  cli.cleanup();
});

function currentProfile() {
  return JSON.parse(readFileSync(join(cli.configDir, "config.json"), "utf8")).currentProfile;
}

describe("petstore profile", () => {
  it("lists the profiles with the current one marked and keys redacted", async () => {
    const run = await cli.run(["profile", "list"]);
    expect(run.out).toBe(
      "\tci\tstaging\thttp://127.0.0.1:4010/v1\tpsk_…0002\n*\tdefault\tproduction\thttps://api.petstore.example/v1\tpsk_…0001\n",
    );
    const json = await cli.run(["profile", "list", "--json"]);
    expect(JSON.parse(json.out)).toEqual([
      {
        name: "ci",
        current: false,
        env: "staging",
        baseUrl: "http://127.0.0.1:4010/v1",
        apiKey: "psk_…0002",
        keyStore: "file",
      },
      {
        name: "default",
        current: true,
        env: "production",
        baseUrl: "https://api.petstore.example/v1",
        apiKey: "psk_…0001",
        keyStore: "file",
      },
    ]);
  });

  it("switches the default profile with use, for later runs only", async () => {
    const run = await cli.run(["profile", "use", "ci"]);
    expect(run.code).toBe(0);
    expect(currentProfile()).toBe("ci");
    cli.stubs.on("GET http://127.0.0.1:4010/v1/pets?limit=20", jsonAnswer(200, "[]"));
    await cli.run(["list"]);
    expect(cli.stubs.requests[0]?.url).toBe("http://127.0.0.1:4010/v1/pets?limit=20");
    expect(cli.stubs.requests[0]?.headers.authorization).toBe("Bearer psk_ci_key_0000000000000002");
  });

  it("acts on one run only with --profile", async () => {
    cli.stubs.on("GET http://127.0.0.1:4010/v1/pets?limit=20", jsonAnswer(200, "[]"));
    await cli.run(["list", "--profile", "ci"]);
    expect(cli.stubs.requests[0]?.url).toBe("http://127.0.0.1:4010/v1/pets?limit=20");
    expect(currentProfile()).toBe("default");
  });

  it("refuses to use or remove a profile that does not exist", async () => {
    for (const verb of ["use", "remove"]) {
      const run = await cli.run(["profile", verb, "nope"]);
      expect(run.code).toBe(2);
      expect(run.err).toBe(
        'error: there is no profile named "nope"\nhint: profiles: default, ci\n',
      );
    }
  });

  it("removes a profile; with no current profile left, default is current again", async () => {
    await cli.run(["profile", "use", "ci"]);
    const run = await cli.run(["profile", "remove", "ci"]);
    expect(run.code).toBe(0);
    expect(currentProfile()).toBeUndefined();
    const list = await cli.run(["profile", "list", "-o", "csv"]);
    expect(list.out).toBe(
      "current,name,env,baseUrl,apiKey\r\n*,default,production,https://api.petstore.example/v1,psk_…0001\r\n",
    );
  });

  describe("precedence: flags > environment > profile > defaults", () => {
    it("takes each setting from the profile when nothing else is given", async () => {
      const run = await cli.run(["profile", "show", "ci", "--json"]);
      expect(JSON.parse(run.out)).toMatchObject({
        profile: "ci",
        env: "staging",
        baseUrl: "http://127.0.0.1:4010/v1",
        apiKey: "psk_…0002",
        sources: { profile: "flag", env: "profile", baseUrl: "profile", apiKey: "profile" },
      });
    });

    it("lets the environment override the profile", async () => {
      const run = await cli.run(["profile", "show", "--json"], {
        env: {
          PETSTORE_PROFILE: "ci",
          PETSTORE_ENV: "production",
          PETSTORE_API_KEY: "psk_env_key_00000000000003",
        },
      });
      expect(JSON.parse(run.out)).toMatchObject({
        profile: "ci",
        env: "production",
        baseUrl: "https://api.petstore.example/v1",
        apiKey: "psk_…0003",
        sources: {
          profile: "environment",
          env: "environment",
          baseUrl: "default",
          apiKey: "environment",
        },
      });
    });

    it("lets flags override the environment", async () => {
      const run = await cli.run(
        ["profile", "show", "ci", "--env", "staging", "--base-url", "http://127.0.0.1:5000/v1"],
        {
          env: {
            PETSTORE_PROFILE: "default",
            PETSTORE_ENV: "production",
            PETSTORE_BASE_URL: "http://127.0.0.1:6000/v1",
          },
        },
      );
      expect(run.out).toBe(
        [
          "Profile:     ci (from --profile)",
          "Environment: staging (from --env)",
          "Base URL:    http://127.0.0.1:5000/v1 (from --base-url)",
          "API key:     psk_…0002 (from profile ci, in the config file)",
          "",
        ].join("\n"),
      );
    });

    it("falls back to the defaults with no profile stored", async () => {
      cli.cleanup();
      const run = await cli.run(["profile", "show"]);
      expect(run.out).toBe(
        [
          "Profile:     default (default)",
          "Environment: production (default)",
          "Base URL:    https://api.petstore.example/v1 (default)",
          "API key:     none",
          "",
        ].join("\n"),
      );
    });
  });
});
