/**
 * A first run that explains itself: with no base URL configured, the built-in
 * placeholder's host does not exist; the failure says so, once, with how to set
 * one. The transport answers as node:http would (see test/client/dns.test.ts).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lastingDnsFailure } from "../../src/client/network-errors.js";
import type { TransportRequest } from "../../src/client/transport.js";
import { cliForEachTest } from "./run-cli.js";

const cli = cliForEachTest();
const NO_URL = { PETSTORE_BASE_URL: undefined };
const SET_ONE =
  "hint: set one with --base-url <url> (this run), PETSTORE_BASE_URL=<url> (this shell), or `petstore auth login --base-url <url>` (stored in the profile)";

/** What node:http's resolver gives for a name that does not exist. */
const notFound = (request: TransportRequest) =>
  lastingDnsFailure(
    "ENOTFOUND",
    { method: request.method, url: request.url },
    new URL(request.url),
  )!;

describe("no base URL configured", () => {
  it("says so, and how to set one, after one attempt (exit 6)", async () => {
    cli.stubs.on("GET https://api.petstore.example/v1/pets?limit=20", notFound);
    const run = await cli.run(["list"], { env: NO_URL });
    expect(run.code).toBe(6);
    expect(run.err).toBe(
      "error: no service URL is configured: https://api.petstore.example/v1 is the built-in production placeholder, and its host api.petstore.example does not exist\n" +
        `${SET_ONE}\n`,
    );
    expect(run.sleeps).toEqual([]);
  });

  it("names the staging placeholder for --env staging", async () => {
    cli.stubs.on("GET https://staging.api.petstore.example/v1/pets/1", notFound);
    const run = await cli.run(["get", "1", "--env", "staging"], { env: NO_URL });
    expect(run.code).toBe(6);
    expect(run.err).toContain(
      "error: no service URL is configured: https://staging.api.petstore.example/v1 is the built-in staging placeholder",
    );
  });

  it("names the host of a configured URL that does not resolve, and where the URL came from", async () => {
    const url = "https://pets.shelter.invalid/v1";
    cli.stubs.on(`GET ${url}/pets?limit=20`, notFound, 2);
    const fromEnv = await cli.run(["list"], { env: { PETSTORE_BASE_URL: url } });
    expect(fromEnv.code).toBe(6);
    expect(fromEnv.err).toBe(
      "error: could not connect to pets.shelter.invalid: the host pets.shelter.invalid was not found (DNS ENOTFOUND)\n" +
        `hint: the base URL ${url} is from PETSTORE_BASE_URL: check its host name, pets.shelter.invalid\n`,
    );
    const fromFlag = await cli.run(["list", "--base-url", url], { env: NO_URL });
    expect(fromFlag.err).toContain(`hint: the base URL ${url} is from --base-url`);
    expect(fromFlag.err).not.toContain("no service URL is configured");
  });

  it("refuses to store a key it cannot check for want of a URL (auth login, exit 6)", async () => {
    cli.stubs.on("GET https://api.petstore.example/v1/pets?limit=1", notFound);
    const run = await cli.run(["auth", "login", "--with-token"], {
      stdin: "psk_live_abcdefghijklmnop1234",
      env: { ...NO_URL, PETSTORE_API_KEY: undefined },
    });
    expect(run.code).toBe(6);
    expect(run.err).toContain(
      "error: the key could not be checked: no service URL is configured: https://api.petstore.example/v1 is the built-in production placeholder",
    );
    expect(run.err).toContain("`petstore auth login --base-url <url>` (stored in the profile)");
    expect(run.err).toContain("`--no-verify` stores the key without checking it");
    expect(existsSync(join(cli.configDir, "config.json"))).toBe(false);
  });

  it("shows it in auth status as the reason the key was not checked", async () => {
    cli.stubs.on("GET https://api.petstore.example/v1/pets?limit=1", notFound);
    const run = await cli.run(["auth", "status"], { env: NO_URL });
    expect(run.code).toBe(6);
    expect(run.out).toContain("Key:         not checked: no service URL is configured");
  });
});
