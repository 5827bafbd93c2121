/** Every client command against a real fake server, through the real CLI. */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/server/server.js";
import { PRO_KEY, runCli, startFake, startOddServer, tempDir } from "./harness.js";

let server: RunningServer;
let home: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startFake({ seed: 3 });
  home = tempDir();
  env = {
    PETSTORE_BASE_URL: server.url,
    PETSTORE_API_KEY: PRO_KEY,
    PETSTORE_CONFIG_DIR: home.path,
  };
});
afterAll(async () => {
  await server?.close();
  home?.remove();
});

describe("the CLI against petstore serve", () => {
  it("adds a pet from flags, prints its id with -q, and lists it with its int64 category exact", async () => {
    const added = await runCli(
      [
        "add",
        "--name",
        "Big Cat",
        "--category-id",
        "9007199254740993",
        "--status",
        "pending",
        "-q",
      ],
      { env },
    );
    expect(added).toMatchObject({ code: 0, stderr: "" });
    const id = added.stdout.trim();
    expect(id).toMatch(/^[0-9]+$/);

    const listed = await runCli(["list", "--status", "pending", "--json"], { env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(
      `{"id":${id},"name":"Big Cat","categoryId":9007199254740993,"status":"pending"}`,
    );

    const tsv = await runCli(["list", "--status", "pending"], { env });
    expect(tsv.stdout.split("\n")).toContain(`${id}\tBig Cat\t9007199254740993\tpending`);
  });

  it("adds a pet from a JSON file and from stdin", async () => {
    const file = join(home.path, "pet.json");
    writeFileSync(file, '{"name":"Filed","categoryId":4,"status":"sold"}');
    const fromFile = await runCli(["add", "--file", file, "--json"], { env });
    expect(fromFile.code).toBe(0);
    expect(fromFile.stdout).toMatch(
      /^\{"id":\d+,"name":"Filed","categoryId":4,"status":"sold"\}\n$/,
    );

    const fromStdin = await runCli(["add", "--file", "-", "-o", "ndjson"], {
      env,
      stdin: '{"name":"Piped","categoryId":5}',
    });
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout).toMatch(/"name":"Piped","categoryId":5,"status":"available"\}\n$/);
  });

  it("gets one pet, with the deprecation warning dated by the service's Sunset header", async () => {
    const run = await runCli(["get", "1", "--json"], { env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ id: 1 });
    const daysLeft = Math.ceil((Date.UTC(2030, 11, 5) - Date.now()) / 86_400_000);
    expect(run.stderr).toMatch(
      new RegExp(
        `^warning: \`petstore get\` stops working on 5 December 2030 \\(in (${daysLeft}|${daysLeft - 1}) days\\); use\n\`petstore list --status <status>\` to find pets`,
      ),
    );
    // Two lines of at most 80 columns (piped), saying what to do.
    const lines = run.stderr.trim().split("\n");
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    // Once a day per profile: the next run in the same config directory says nothing.
    const again = await runCli(["get", "1", "-q"], { env });
    expect(again).toEqual({ code: 0, stdout: "1\n", stderr: "" });
  });

  it("silences the deprecation warning with PETSTORE_NO_DEPRECATION_WARNING=1", async () => {
    const run = await runCli(["get", "1", "-q"], {
      env: { ...env, PETSTORE_NO_DEPRECATION_WARNING: "1" },
    });
    expect(run).toEqual({ code: 0, stdout: "1\n", stderr: "" });
  });

  it("prints csv with a header, and a table when colour is forced", async () => {
    const csv = await runCli(["list", "--limit", "2", "-o", "csv"], { env });
    expect(csv.stdout.split("\r\n")[0]).toBe("id,name,categoryId,status");
    expect(csv.stdout.split("\r\n")).toHaveLength(4);
    const table = await runCli(["list", "--limit", "1", "-o", "table"], {
      env: { ...env, FORCE_COLOR: "1" },
    });
    expect(table.stdout).toContain("\u001b[1mID\u001b[22m");
  });

  it("logs the request with --verbose on stderr, without the key", async () => {
    const run = await runCli(["list", "--limit", "1", "--verbose"], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /^GET http:\/\/127\.0\.0\.1:\d+\/v1\/pets\?limit=1 -> 200 in \d+ ms; rate limit \d+\/300 left/,
    );
    expect(run.stderr).not.toContain(PRO_KEY);
  });

  it("logs in, shows the status with the rate limit from the headers, and logs out", async () => {
    const configEnv = { PETSTORE_CONFIG_DIR: join(home.path, "login") };
    const login = await runCli(["auth", "login", "--with-token", "--base-url", server.url], {
      env: configEnv,
      stdin: `${PRO_KEY}\n`,
    });
    expect(login.code).toBe(0);
    expect(login.stderr).toContain(`Base URL:    ${server.url} (from --base-url)`);
    expect(login.stderr).toMatch(
      /The service accepted the key\. Rate limit: \d+ of 300 requests left this minute; resets in \d+ s \(at \d\d:\d\d(:\d\d)? UTC\)/,
    );
    const status = await runCli(["auth", "status"], { env: configEnv });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`Base URL:    ${server.url} (from profile default)`);
    expect(status.stdout).toContain("Key:         accepted");
    expect(status.stdout).toMatch(
      /Rate limit: {2}\d+ of 300 requests left this minute; resets in \d+ s \(at [0-9:]+ UTC\)/,
    );
    expect(status.stdout + status.stderr).not.toContain(PRO_KEY);
    const json = await runCli(["auth", "status", "--json"], { env: configEnv });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      profile: "default",
      baseUrl: server.url,
      apiKey: "…6789",
      key: "accepted",
      rateLimit: { limit: 300, window: "minute" },
    });
    expect(json.stdout).not.toContain(PRO_KEY);

    expect((await runCli(["auth", "logout"], { env: configEnv })).code).toBe(0);
    const after = await runCli(["list"], { env: configEnv });
    expect(after.code).toBe(3);
  });

  it("does not store a key the service rejects (exit 3), nor one it cannot check (exit 6)", async () => {
    const configEnv = { PETSTORE_CONFIG_DIR: join(home.path, "rejected") };
    const rejected = await runCli(["auth", "login", "--with-token", "--base-url", server.url], {
      env: configEnv,
      stdin: "not-a-key-of-this-server\n",
    });
    expect(rejected.code).toBe(3);
    expect(rejected.stderr).toContain("the service rejected the key (401)");
    expect(rejected.stderr).toContain("it was not stored");
    const failing = await startOddServer((_request, response) => {
      response.writeHead(500, { "content-type": "application/json" });
      response.end('{"code":"internal_error","message":"something broke","status":500}');
    });
    try {
      const unchecked = await runCli(["auth", "login", "--with-token", "--base-url", failing.url], {
        env: configEnv,
        stdin: PRO_KEY,
      });
      expect(unchecked.code).toBe(6);
      expect(unchecked.stderr).toContain(
        "the key could not be checked: the service answered 500 Internal Server Error: something broke; it was not stored",
      );
      expect(unchecked.stderr).toContain("`--no-verify` stores the key without checking it");
    } finally {
      await failing.close();
    }
    expect(existsSync(join(home.path, "rejected", "config.json"))).toBe(false);
  });

  it("lists, shows and removes profiles, and completes their names", async () => {
    const configEnv = { PETSTORE_CONFIG_DIR: join(home.path, "profiles") };
    for (const profile of ["ci", "local"]) {
      const login = await runCli(
        ["auth", "login", "--with-token", "--profile", profile, "--base-url", server.url],
        { env: configEnv, stdin: PRO_KEY },
      );
      expect(login.code).toBe(0);
    }
    const listed = await runCli(["profile", "list"], { env: configEnv });
    expect(listed.stdout).toBe(
      `*\tci\tproduction\t${server.url}\t…6789\n\tlocal\tproduction\t${server.url}\t…6789\n`,
    );
    const shown = await runCli(["profile", "show", "local", "--json"], { env: configEnv });
    expect(JSON.parse(shown.stdout)).toMatchObject({ profile: "local", baseUrl: server.url });
    const complete = ["__complete", "--", "profile", "use", ""];
    expect((await runCli(complete, { env: configEnv })).stdout).toBe("ci\nlocal\n");
    expect((await runCli(["profile", "remove", "local"], { env: configEnv })).code).toBe(0);
    expect((await runCli(complete, { env: configEnv })).stdout).toBe("ci\n");
  });

  it("prints the completion script of each shell", async () => {
    for (const shell of ["bash", "zsh", "fish"]) {
      const run = await runCli(["completion", shell]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`# ${shell} completion for petstore`);
    }
  });

  it("answers --version and --help", async () => {
    const version = await runCli(["--version"]);
    expect(version).toMatchObject({ code: 0, stderr: "" });
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const help = await runCli(["add", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Examples:");
  });
});
