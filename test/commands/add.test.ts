import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { errorAnswer, jsonAnswer } from "./http-stubs.js";
import { cliForEachTest } from "./run-cli.js";

const CREATED = '{"id":7,"name":"Rex","categoryId":9007199254740993,"status":"available"}';

const cli = cliForEachTest();

/** What writeSync throws on /dev/full. */
const FULL_DISK = Object.assign(new Error("ENOSPC: no space left on device, write"), {
  code: "ENOSPC",
  errno: -28,
  syscall: "write",
});

describe("petstore add", () => {
  it("sends the flags as a NewPet, category id exact beyond 2^53, and prints only the id with -q", async () => {
    cli.stubs.on("POST /pets", jsonAnswer(201, CREATED));
    const run = await cli.run([
      "add",
      "--name",
      "Rex",
      "--category-id",
      "9007199254740993",
      "--status",
      "available",
      "-q",
    ]);
    expect(run.code).toBe(0);
    expect(run.out).toBe("7\n");
    expect(cli.stubs.requests[0]?.body).toBe(
      '{"name":"Rex","categoryId":9007199254740993,"status":"available"}',
    );
  });

  it("prints the created pet as the service sent it with --json", async () => {
    cli.stubs.on("POST /pets", jsonAnswer(201, CREATED));
    const run = await cli.run(["add", "--name=Rex", "--category-id=1", "--json"]);
    expect(run.out).toBe(CREATED + "\n");
  });

  it("reads the body from a file", async () => {
    const file = join(cli.configDir, "pet.json");
    writeFileSync(file, '{ "name": "Tom", "categoryId": 2 }');
    cli.stubs.on("POST /pets", jsonAnswer(201, CREATED));
    const run = await cli.run(["add", "--file", file]);
    expect(run.code).toBe(0);
    expect(cli.stubs.requests[0]?.body).toBe('{"name":"Tom","categoryId":2}');
  });

  it("reads the body from stdin with --file -", async () => {
    cli.stubs.on("POST /pets", jsonAnswer(201, CREATED));
    const run = await cli.run(["add", "--file", "-"], {
      stdin: '{"name":"Tom","categoryId":2,"status":"sold"}',
    });
    expect(run.code).toBe(0);
    expect(cli.stubs.requests[0]?.body).toBe('{"name":"Tom","categoryId":2,"status":"sold"}');
  });

  it.each([
    [[], /--name is required; --category-id is required/],
    [["--name", "Rex"], /--category-id is required/],
    [
      ["--name", "Rex", "--category-id", "x1"],
      /^error: --category-id: the category id is a whole number, like 3, not "x1"$/m,
    ],
    [
      ["--name", "Rex", "--category-id", "9223372036854775808"],
      /^error: --category-id: the category id is at most 9223372036854775807, not 9223372036854775808$/m,
    ],
    [["--name", " ", "--category-id", "1"], /^error: --name: the name can't be only spaces$/m],
    [["--name", "", "--category-id", "1"], /^error: --name: the name can't be empty$/m],
    [
      ["--name", "R".repeat(201), "--category-id", "1"],
      /^error: --name: the name is at most 200 characters; this one has 201$/m,
    ],
    [
      ["--name", "Rex", "--category-id", "1", "--status", "lost"],
      /--status: the status is available, pending or sold, not "lost"/,
    ],
    [["--file", "-", "--name", "Rex"], /--file gives the whole pet; it conflicts with --name/],
    [
      ["--file", "/nonexistent/pet.json"],
      /--file \/nonexistent\/pet.json cannot be read \(no such file\)/,
    ],
  ])("rejects %j with exit 2 and sends nothing", async (flags, message) => {
    const run = await cli.run(["add", ...flags]);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(message);
    expect(cli.stubs.requests).toHaveLength(0);
  });

  it.each([
    ["--category-id", "abc"],
    ["--category-id", "1.5"],
    ["--category-id", "-9223372036854775809"],
    ["--name", ""],
    ["--name", "   "],
  ])("says what is wrong with %s %j in a person's words", async (flag, value) => {
    const run = await cli.run(["add", "--name", "Rex", "--category-id", "1", flag, value]);
    expect(run.code).toBe(2);
    const [message, hint] = run.err.split("\n");
    expect(message).toMatch(/^error: --(name|category-id): the (name|category id) /);
    expect(message).not.toMatch(/int64|integer|JSON|non-blank|string|got /);
    expect(hint).toBe("hint: or give the whole pet as JSON with --file");
  });

  it.each([
    ["{", /the JSON on stdin is not valid JSON: Unexpected end of input.* at line 1, column 2/],
    ['{"name":"Tom","categoryId":"2"}', /the JSON on stdin: categoryId must be an integer/],
    ['{"name":"Tom","categoryId":2,"colour":"red"}', /the JSON on stdin: colour unknown field/],
    ["[]", /the JSON on stdin: body must be a JSON object/],
  ])("rejects the body %j from stdin with exit 2", async (body, message) => {
    const run = await cli.run(["add", "--file", "-"], { stdin: body });
    expect(run.code).toBe(2);
    expect(run.err).toMatch(message);
    expect(cli.stubs.requests).toHaveLength(0);
  });

  it.each([[["-q"]], [["--json"]], [["--output", "csv"]], [[]]])(
    "with stdout failing (%j), exits 1 and gives the added pet's id on stderr",
    async (flags) => {
      cli.stubs.on("POST /pets", jsonAnswer(201, CREATED));
      const run = await cli.run(["add", "--name", "Rex", "--category-id", "1", ...flags], {
        stdoutFailure: FULL_DISK,
      });
      expect(run.code).toBe(1);
      expect(run.err).toBe(
        "error: pet 7 was added, but could not write to standard output: " +
          "no space left on device (ENOSPC)\nhint: it is pet 7; do not add it again\n",
      );
      expect(cli.stubs.requests).toHaveLength(1);
    },
  );

  it("reports the service's 400 message with exit 2", async () => {
    cli.stubs.on("POST /pets", errorAnswer(400, "invalid_body", "categoryId is unknown"));
    const run = await cli.run(["add", "--name", "Rex", "--category-id", "1"]);
    expect(run.code).toBe(2);
    expect(run.err).toContain("categoryId is unknown");
  });
});

describe("a 201 whose body is not a pet", () => {
  it("takes the id from Location: -q prints it, --json the pet sent with it, and stderr says so", async () => {
    const garbled = jsonAnswer(201, "<html>created</html>", { location: "/v1/pets/77" });
    cli.stubs.on("POST /pets", garbled, 2);
    const quiet = await cli.run(["add", "-n", "Rex", "-c", "1", "-q"]);
    expect(quiet.code, quiet.err).toBe(0);
    expect(quiet.out).toBe("77\n");
    expect(quiet.err).toContain("is not a pet: invalid JSON");
    expect(quiet.err).toContain("the pet was added as pet 77, the id its Location header names");
    const json = await cli.run(["add", "-n", "Rex", "-c", "1", "-s", "sold", "--json"]);
    expect(json.code).toBe(0);
    expect(json.out).toBe('{"id":77,"name":"Rex","categoryId":1,"status":"sold"}\n');
  });

  it("quotes no control character of that body on stderr", async () => {
    cli.stubs.on("POST /pets", jsonAnswer(201, "\u202e\u009b", { location: "/v1/pets/78" }));
    const run = await cli.run(["add", "-n", "Rex", "-c", "1", "-q"]);
    expect(run.code).toBe(0);
    expect(run.err).toContain("is not a pet: invalid JSON");
    expect(run.err).not.toMatch(/[\u009b\u202e]/);
  });

  it("is an outcome unknown (exit 7) without a Location naming the id", async () => {
    cli.stubs.on("POST /pets", jsonAnswer(201, '{"id":"seven"}'));
    cli.stubs.on("POST /pets", jsonAnswer(201, "", { location: "/v1/owners/3" }));
    for (let i = 0; i < 2; i++) {
      const run = await cli.run(["add", "-n", "Rex", "-c", "1"]);
      expect(run.code).toBe(7);
      expect(run.out).toBe("");
      expect(run.err).toContain("the pet was most likely added, but no id can be read");
      expect(run.err).toContain("`petstore list` shows only the first 100 pets by id");
    }
  });
});
