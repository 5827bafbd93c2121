/**
 * A host name that does not resolve: ENOTFOUND is final (not retried), EAI_AGAIN
 * is transient (retried), except for names reserved never to resolve. The
 * resolver is replaced through node:http's `lookup` option, so each answer is
 * exact and no DNS server is asked.
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { describe, expect, it } from "vitest";
import { createClient } from "../../src/client/client.js";
import type { Transport } from "../../src/client/transport.js";
import { isReservedHostName } from "../../src/client/proxy-env.js";
import { exchange } from "../../src/client/transport.js";
import { DEFAULT_RETRY_POLICY } from "../../src/client/retry.js";
import { HostNotFoundError, NetworkError } from "../../src/errors.js";

/** A transport whose every lookup fails with `code`, counting the lookups. */
function failingLookup(code: string): { transport: Transport; lookups: string[] } {
  const lookups: string[] = [];
  const lookup = ((hostname: string, _options: unknown, callback: (error: Error) => void) => {
    lookups.push(hostname);
    process.nextTick(() =>
      callback(Object.assign(new Error(`getaddrinfo ${code} ${hostname}`), { code })),
    );
  }) as unknown as LookupFunction;
  const transport: Transport = (request) => {
    const url = new URL(request.url);
    const open = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = open(url, {
      method: request.method,
      headers: request.headers,
      agent: false,
      lookup,
    });
    return exchange(req, request, url);
  };
  return { transport, lookups };
}

async function listWith(baseUrl: string, code: string) {
  const { transport, lookups } = failingLookup(code);
  const sleeps: number[] = [];
  const client = createClient({
    baseUrl,
    apiKey: "psk_test_0123456789abcdef",
    timeoutMs: 5_000,
    retry: DEFAULT_RETRY_POLICY,
    allowInsecure: true,
    transport,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
  });
  const error = await client.listPets({ limit: 1 }).catch((e: unknown) => e);
  return { error: error as NetworkError, lookups, sleeps };
}

describe("a host that does not resolve", () => {
  it("fails at once on ENOTFOUND, without retries, naming the host (exit 6)", async () => {
    const { error, lookups, sleeps } = await listWith(
      "http://pets.shelter.test:8080/v1",
      "ENOTFOUND",
    );
    expect(error).toBeInstanceOf(HostNotFoundError);
    expect(error.exitCode).toBe(6);
    expect(error.sent).toBe(false);
    expect(error.message).toBe(
      "could not connect to pets.shelter.test:8080: the host pets.shelter.test was not found (DNS ENOTFOUND)",
    );
    expect(lookups).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("retries EAI_AGAIN (the resolver could not answer now), as a network error", async () => {
    const { error, lookups, sleeps } = await listWith("http://pets.shelter.test/v1", "EAI_AGAIN");
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).not.toBeInstanceOf(HostNotFoundError);
    expect(error.exitCode).toBe(6);
    expect(lookups).toHaveLength(DEFAULT_RETRY_POLICY.limit + 1);
    expect(sleeps).toHaveLength(DEFAULT_RETRY_POLICY.limit);
  });

  it("does not retry EAI_AGAIN for a name reserved never to resolve (the built-in placeholders)", async () => {
    const { error, lookups, sleeps } = await listWith(
      "https://api.petstore.example/v1",
      "EAI_AGAIN",
    );
    expect(error).toBeInstanceOf(HostNotFoundError);
    expect(error.message).toContain("the host api.petstore.example was not found (DNS EAI_AGAIN)");
    expect(lookups).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it.each([
    ["api.petstore.example", true],
    ["staging.api.petstore.example", true],
    ["example", true],
    ["API.PETSTORE.EXAMPLE.", true],
    ["no.such.invalid", true],
    ["example.com", false],
    ["myexample", false],
    ["pets.test", false],
    ["localhost", false],
  ])("counts %j as reserved never to resolve: %s", (host, reserved) => {
    expect(isReservedHostName(host)).toBe(reserved);
  });
});
