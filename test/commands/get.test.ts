import { describe, expect, it } from "vitest";
import { errorAnswer, jsonAnswer } from "./http-stubs.js";
import { cliForEachTest } from "./run-cli.js";

const PET = '{"id":42,"name":"Rex","categoryId":2,"status":"pending"}';

const cli = cliForEachTest();

describe("petstore get", () => {
  it("prints the pet and one deprecation warning on stderr, with the days left", async () => {
    cli.stubs.on("GET /pets/42", jsonAnswer(200, PET));
    const run = await cli.run(["get", "42"]);
    expect(run.code).toBe(0);
    expect(run.out).toBe("42\tRex\t2\tpending\n");
    // NOW is 5 November 2030; with no Sunset header the spec's 5 December 2030 applies.
    expect(run.err).toBe(
      "warning: `petstore get` uses GET /pets/{petId}, which the service has deprecated: it will be removed on 5 December 2030 (in 30 days). Use `petstore list --status <status>` instead. PETSTORE_NO_DEPRECATION_WARNING=1 hides this warning.\n",
    );
  });

  it("takes the removal date from the Sunset header and names the successor link", async () => {
    cli.stubs.on(
      "GET /pets/42",
      jsonAnswer(200, PET, {
        sunset: "Sun, 10 Nov 2030 00:00:00 GMT",
        link: '</v1/pets>; rel="successor-version"',
      }),
    );
    const run = await cli.run(["get", "42", "--json"]);
    expect(run.out).toBe(PET + "\n");
    expect(run.err).toContain("it will be removed on 10 November 2030 (in 5 days)");
    expect(run.err).toContain("(the service names http://127.0.0.1:9/v1/pets)");
    expect(run.err.match(/warning:/g)).toHaveLength(1);
  });

  it("colours the warning label only when stderr gets colour", async () => {
    cli.stubs.on("GET /pets/42", jsonAnswer(200, PET), 2);
    const terminal = await cli.run(["get", "42"], { stderrTTY: true });
    expect(terminal.err.startsWith("\u001b[33mwarning:\u001b[39m ")).toBe(true);
    const forced = await cli.run(["get", "42"], { stdoutTTY: true, env: { FORCE_COLOR: "0" } });
    expect(forced.err).toMatch(/^warning: /);
  });

  it("is silenced by PETSTORE_NO_DEPRECATION_WARNING=1", async () => {
    cli.stubs.on("GET /pets/42", jsonAnswer(200, PET));
    const run = await cli.run(["get", "42"], { env: { PETSTORE_NO_DEPRECATION_WARNING: "1" } });
    expect(run.err).toBe("");
  });

  it("still warns when the pet is not found", async () => {
    cli.stubs.on("GET /pets/7", errorAnswer(404, "not_found", "no pet has the id 7"));
    const run = await cli.run(["get", "7"]);
    expect(run.code).toBe(4);
    expect(run.err).toMatch(
      /^warning: .*deprecated.*\nerror: 404 Not Found: no pet has the id 7\n$/,
    );
  });

  it("accepts the largest int64 id and sends it digit for digit", async () => {
    const id = "9223372036854775807";
    cli.stubs.on(`GET /pets/${id}`, jsonAnswer(200, PET.replace("42", id)));
    const run = await cli.run(["get", id, "-q"]);
    expect(run.out).toBe(`${id}\n`);
  });

  it.each(["abc", "1.5", "9223372036854775808", "007"])(
    "rejects the id %j with exit 2 before sending",
    async (id) => {
      const run = await cli.run(["get", "--", id]);
      expect(run.code).toBe(2);
      expect(run.err).toMatch(
        /^error: <petId> must be an integer from -9223372036854775808 to 9223372036854775807; got /,
      );
      expect(cli.stubs.requests).toHaveLength(0);
    },
  );
});
