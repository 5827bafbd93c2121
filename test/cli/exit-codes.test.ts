/** Every exit code, one by one, in-process: the mapping lives in cli.ts alone. */
import { describe, expect, it } from "vitest";
import { EXIT_MEANINGS, NetworkError, TimeoutError } from "../../src/errors.js";
import { errorAnswer, jsonAnswer } from "../commands/http-stubs.js";
import { API_KEY, BASE_URL, cliForEachTest } from "../commands/run-cli.js";

const cli = cliForEachTest();

/** What writeSync throws on /dev/full. */
const FULL_DISK = Object.assign(new Error("ENOSPC: no space left on device, write"), {
  code: "ENOSPC",
  errno: -28,
  syscall: "write",
});

const refused = () =>
  new NetworkError(
    "could not connect to 127.0.0.1:9: connection refused",
    { method: "GET", url: BASE_URL },
    false,
  );

describe("exit codes", () => {
  it("0 on success", async () => {
    cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, "[]"));
    expect((await cli.run(["list"])).code).toBe(0);
  });

  it("1 on an unexpected answer, with a hint to use --debug and no stack trace", async () => {
    cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, '{"not":"a list"}'));
    const run = await cli.run(["list"]);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^error: /);
    expect(run.err).not.toMatch(/\n\s+at /);
  });

  it("1 with the stack trace when --debug is given", async () => {
    cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, '{"not":"a list"}'));
    const run = await cli.run(["list", "--debug"]);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/\n\s+at /);
  });

  it("2 for a 400 from the service, with its message", async () => {
    cli.stubs.on("POST /pets", errorAnswer(400, "invalid_body", "name must not be blank"));
    const run = await cli.run(["add", "--name", "Rex", "--category-id", "1"]);
    expect(run.code).toBe(2);
    expect(run.err).toContain("name must not be blank");
  });

  it.each([
    [["list", "--bogus"], /unknown option '--bogus'/, "petstore list"],
    [["get"], /missing required argument 'petId'/, "petstore get"],
    [["get", "1", "2"], /too many arguments/, "petstore get"],
    [["list", "--status"], /option '-s, --status <status>' argument missing/, "petstore list"],
    [["auth", "login", "--bogus"], /unknown option '--bogus'/, "petstore auth login"],
    [["serve", "--bogus"], /unknown option '--bogus'/, "petstore serve"],
    [["frobnicate"], /unknown command 'frobnicate'/, "petstore"],
  ])("2 for commander's usage error %j, naming the command's help", async (argv, message, path) => {
    const run = await cli.run(argv);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(message);
    expect(run.err).toContain(`run \`${path} --help\` for usage`);
  });

  it("2 before sending the key over plain http:// to another host, unless --allow-insecure", async () => {
    const env = { PETSTORE_BASE_URL: "http://pets.example.test/v1" };
    const refused = await cli.run(["list"], { env });
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("refusing to send the API key over plain http://");
    expect(cli.stubs.requests).toHaveLength(0);

    cli.stubs.on("GET http://pets.example.test/v1/pets?limit=20", jsonAnswer(200, "[]"));
    const allowed = await cli.run(["list", "--allow-insecure"], { env });
    expect(allowed.code).toBe(0);
  });

  it("3 when the service rejects the key, and the key is not printed", async () => {
    cli.stubs.on(
      "GET /pets?limit=20",
      errorAnswer(401, "unauthorized", "the API key is not valid"),
    );
    const run = await cli.run(["list"]);
    expect(run.code).toBe(3);
    expect(run.err).toContain("the API key is not valid");
    expect(run.err + run.out).not.toContain(API_KEY);
  });

  it("3 when there is no key at all, before anything is sent", async () => {
    const run = await cli.run(["list"], { env: { PETSTORE_API_KEY: undefined } });
    expect(run.code).toBe(3);
    expect(run.err).toContain("no API key");
    expect(run.err).toContain("hint: run `petstore auth login`");
  });

  it("4 for a pet that does not exist", async () => {
    cli.stubs.on("GET /pets/99", errorAnswer(404, "not_found", "no pet has the id 99"));
    const run = await cli.run(["get", "99"]);
    expect(run.code).toBe(4);
    expect(run.err).toContain("no pet has the id 99");
  });

  it("5 when still rate limited after the retries, each wait announced", async () => {
    cli.stubs.on(
      "GET /pets?limit=20",
      errorAnswer(429, "rate_limited", "too many requests", { "retry-after": "2" }),
      3,
    );
    const run = await cli.run(["list", "--max-retries", "2"]);
    expect(run.code).toBe(5);
    // Never sooner than Retry-After says.
    expect(run.sleeps).toHaveLength(2);
    for (const ms of run.sleeps) expect(ms).toBeGreaterThanOrEqual(2000);
    // Retry-After 2 and the 250 ms margin: the wait said as it is.
    expect(run.err).toMatch(/^rate limited; retrying in 2\.3 s, attempt 2 of 3$/m);
    expect(run.err).toMatch(/^rate limited; retrying in 2\.3 s, attempt 3 of 3$/m);
    expect(run.err).toMatch(/error: .*429/);
  });

  it("6 when the service cannot be reached", async () => {
    cli.stubs.on("GET /pets?limit=20", refused(), 1);
    const run = await cli.run(["list", "--no-retry"]);
    expect(run.code).toBe(6);
    expect(run.err).toContain("connection refused");
  });

  it("6 on a timeout of a GET", async () => {
    const timeout = new TimeoutError(
      "no complete answer within 1 s",
      { method: "GET", url: BASE_URL },
      true,
    );
    cli.stubs.on("GET /pets?limit=20", timeout);
    const run = await cli.run(["list", "--no-retry", "--timeout", "1"]);
    expect(run.code).toBe(6);
    expect(cli.stubs.requests[0]?.timeoutMs).toBe(1000);
  });

  it("7 when an add timed out after it was sent, and it is not repeated", async () => {
    const timeout = new TimeoutError(
      "no complete answer within 15 s",
      { method: "POST", url: BASE_URL },
      true,
    );
    cli.stubs.on("POST /pets", timeout);
    const run = await cli.run(["add", "--name", "Rex", "--category-id", "1"]);
    expect(run.code).toBe(7);
    expect(run.err).toContain("may or may not have been added");
    expect(cli.stubs.requests).toHaveLength(1);
  });

  it("0 for --help and --version", async () => {
    const help = await cli.run(["list", "--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toContain("Examples:");
    const version = await cli.run(["--version"]);
    expect(version.code).toBe(0);
    expect(version.out).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?\n$/);
  });

  it.each([[["list", "--json"]], [["list", "--help"]], [["--version"]], [["profile", "list"]]])(
    "1 when stdout cannot be written (%j), naming the error and no stack trace",
    async (argv) => {
      if (argv.join(" ") === "list --json")
        cli.stubs.on("GET /pets?limit=20", jsonAnswer(200, "[]"));
      const run = await cli.run(argv, { stdoutFailure: FULL_DISK });
      expect(run.code).toBe(1);
      expect(run.err).toBe(
        "error: could not write to standard output: no space left on device (ENOSPC)\n",
      );
    },
  );

  it("a command's own error wins over a failed stdout", async () => {
    cli.stubs.on("GET /pets/99", errorAnswer(404, "not_found", "no pet has the id 99"));
    const run = await cli.run(["get", "99"], { stdoutFailure: FULL_DISK });
    expect(run.code).toBe(4);
    expect(run.err).not.toContain("standard output");
  });

  it("documents every exit code in --help (one line each where the width allows)", async () => {
    const run = await cli.run(["--help"], { env: { COLUMNS: "400" } });
    for (const [code, meaning] of Object.entries(EXIT_MEANINGS)) {
      expect(run.out.split("\n")).toContain(`  ${code.padEnd(3)}  ${meaning}`);
    }
    expect(run.out).toContain("(5xx)");
    expect(run.out).toContain("SIGTERM");
  });
});
