import { afterEach, describe, expect, it } from "vitest";
import { type ClientOptions, createClient } from "../../src/client/client.js";
import type { Transport } from "../../src/client/transport.js";
import { DEFAULT_RETRY_POLICY } from "../../src/client/retry.js";
import type { RetryEvent } from "../../src/client/types.js";
import {
  AuthError,
  HttpError,
  NetworkError,
  NotFoundError,
  OutcomeUnknownError,
  PetstoreError,
  TimeoutError,
  UsageError,
} from "../../src/errors.js";
import { json, startServer, type TestServer, unusedPort } from "./http-server.js";

const KEY = "psk_live_4f9a8b7c6d5e4f3a2b1c";
const NO_RETRY = { ...DEFAULT_RETRY_POLICY, limit: 0 };

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}

function client(baseUrl: string, options: Partial<ClientOptions> = {}) {
  const sleeps: number[] = [];
  const debugLines: string[] = [];
  const events: RetryEvent[] = [];
  const petstore = createClient({
    baseUrl,
    apiKey: KEY,
    timeoutMs: 5_000,
    retry: NO_RETRY,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    debug: (line) => debugLines.push(line),
    onRetry: (event) => events.push(event),
    ...options,
  });
  return { petstore, sleeps, debugLines, events };
}

async function failureOf(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.catch((e: unknown) => e);
  if (!(error instanceof Error)) throw new Error("expected the call to fail");
  return error;
}

describe("the client over a real socket", () => {
  it("lists pets with the key, and keeps int64 values exact in raw and data", async () => {
    const page =
      '[{"id":9223372036854775807,"name":"Rex","categoryId":9007199254740993,"status":"sold"}]';
    const server = await serve((_req, res) => json(res, 200, page));
    const { petstore } = client(server.baseUrl);

    const result = await petstore.listPets({ limit: 5, status: "sold" });

    expect(result.raw).toBe(page);
    expect(result.data).toEqual([
      { id: 9223372036854775807n, name: "Rex", categoryId: 9007199254740993n, status: "sold" },
    ]);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe("GET");
    expect(request?.url).toBe("/v1/pets?limit=5&status=sold");
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.headers.accept).toBe("application/json");
  });

  it("posts a new pet as exact JSON and returns the created pet", async () => {
    const created = '{"id":12,"name":"Rex","categoryId":9223372036854775807,"status":"pending"}';
    const server = await serve((_req, res) => json(res, 201, created));
    const { petstore } = client(server.baseUrl);

    const result = await petstore.createPet({
      name: "Rex",
      categoryId: 9223372036854775807n,
      status: "pending",
    });

    expect(server.requests[0]?.body).toBe(
      '{"name":"Rex","categoryId":9223372036854775807,"status":"pending"}',
    );
    expect(server.requests[0]?.headers["content-type"]).toBe("application/json");
    expect(result.data.id).toBe(12n);
    expect(result.raw).toBe(created);
  });

  it("reads the deprecation notice of getPet", async () => {
    const server = await serve((_req, res) =>
      json(res, 200, '{"id":7,"name":"Tom","categoryId":1}', {
        deprecation: "@1735689600",
        sunset: "Wed, 04 Dec 2030 00:00:00 GMT",
        link: '</v1/pets>; rel="successor-version"',
      }),
    );
    const { petstore } = client(server.baseUrl);

    const result = await petstore.getPet(7n);

    expect(server.requests[0]?.url).toBe("/v1/pets/7");
    expect(result.data).toEqual({ id: 7n, name: "Tom", categoryId: 1n });
    expect(result.deprecation).toEqual({
      sunset: new Date("2030-12-04T00:00:00Z"),
      replacement: `${server.origin}/v1/pets`,
    });
  });

  it("gives getPet the spec's sunset when the service sends no headers", async () => {
    const server = await serve((_req, res) =>
      json(res, 200, '{"id":7,"name":"Tom","categoryId":1}'),
    );
    const { petstore } = client(server.baseUrl);
    const result = await petstore.getPet(7n);
    expect(result.deprecation).toEqual({ sunset: new Date("2030-12-05T00:00:00Z") });
  });

  it("turns a 400 into a UsageError with the service's message", async () => {
    const server = await serve((_req, res) =>
      json(res, 400, '{"code":"invalid_body","message":"name is required","status":400}'),
    );
    const { petstore } = client(server.baseUrl);
    const error = await failureOf(petstore.createPet({ name: "x", categoryId: 1n }));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect(error.message).toBe(
      "the service rejected the request: 400 Bad Request: name is required",
    );
  });

  it("turns a 401 into an AuthError (exit 3) carrying the Error body", async () => {
    const server = await serve((_req, res) =>
      json(res, 401, '{"code":"unauthorized","message":"invalid API key","status":401}'),
    );
    const { petstore } = client(server.baseUrl);
    const error = await failureOf(petstore.listPets({ limit: 1 }));
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).exitCode).toBe(3);
    expect((error as AuthError).body).toEqual({
      code: "unauthorized",
      message: "invalid API key",
      status: 401n,
    });
  });

  it("turns a 404 into a NotFoundError (exit 4)", async () => {
    const server = await serve((_req, res) =>
      json(res, 404, '{"code":"not_found","message":"no pet with id 99","status":404}'),
    );
    const { petstore } = client(server.baseUrl);
    const error = await failureOf(petstore.getPet(99n));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).exitCode).toBe(4);
    expect(error.message).toBe("404 Not Found: no pet with id 99");
  });

  it("names the status of an error answer that is not an Error object", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(502, { "content-type": "text/plain" });
      res.end("upstream \u001b[31mexploded\nstack...");
    });
    const { petstore } = client(server.baseUrl);
    const error = await failureOf(petstore.listPets({ limit: 1 }));
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).exitCode).toBe(6);
    expect(error.message).toBe('the service answered 502 Bad Gateway ("upstream  [31mexploded")');
  });

  it("reports an answer that is not a list of pets as unexpected (exit 1)", async () => {
    const server = await serve((_req, res) => json(res, 200, '{"hello":"world"}'));
    const { petstore } = client(server.baseUrl);
    const error = await failureOf(petstore.listPets({ limit: 1 }));
    expect((error as HttpError).exitCode).toBe(1);
    expect(error.message).toMatch(
      /^the service's answer to GET \/pets\?limit=1 is not a list of pets/,
    );
  });

  it("refuses an answer with a 1,000,000-digit id without converting it, naming the field", async () => {
    const page = `[{"id":${"9".repeat(1_000_000)},"name":"Rex","categoryId":1,"status":"sold"}]`;
    const server = await serve((_req, res) => json(res, 200, page));
    const { petstore } = client(server.baseUrl);
    const error = await failureOf(petstore.listPets({ limit: 1 }));
    expect((error as HttpError).exitCode).toBe(1);
    expect(error.message).toBe(
      `the service's answer to GET /pets?limit=1 is not a list of pets: invalid JSON (Integer of 1000000 digits for "id" is out of int64 range (at most 20 digits are read) at line 1, column 8)`,
    );
  });

  it("times out with a TimeoutError when no answer comes", async () => {
    const server = await serve(() => {});
    const { petstore } = client(server.baseUrl, { timeoutMs: 100 });
    const error = await failureOf(petstore.listPets({ limit: 1 }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).exitCode).toBe(6);
    expect((error as TimeoutError).sent).toBe(true);
  });

  it("reports a POST whose connection is reset after the body as outcome unknown, and does not repeat it", async () => {
    const server = await serve((req) => req.socket.destroy());
    const { petstore, sleeps } = client(server.baseUrl, { retry: DEFAULT_RETRY_POLICY });
    const error = await failureOf(petstore.createPet({ name: "Rex", categoryId: 1n }));
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).exitCode).toBe(7);
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("reports a POST answered 507 as a definite failure (exit 6): not stored, not repeated", async () => {
    const server = await serve((_req, res) =>
      json(
        res,
        507,
        '{"code":"insufficient_storage","message":"the disk is full; the pet was not stored","status":507}',
      ),
    );
    const { petstore, sleeps } = client(server.baseUrl, { retry: DEFAULT_RETRY_POLICY });
    const error = await failureOf(petstore.createPet({ name: "Rex", categoryId: 1n }));
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).exitCode).toBe(6);
    expect(error.message).toBe(
      "the service answered 507 Insufficient Storage: the disk is full; the pet was not stored",
    );
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("reports a POST that times out after sending as outcome unknown, never repeated", async () => {
    const server = await serve(() => {});
    const { petstore, sleeps } = client(server.baseUrl, {
      timeoutMs: 100,
      retry: DEFAULT_RETRY_POLICY,
    });
    const error = await failureOf(petstore.createPet({ name: "Rex", categoryId: 1n }));
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error.message).toBe(
      `no complete answer from ${new URL(server.origin).host} within 0.1 s after the request was sent; the pet may or may not have been added`,
    );
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("reports an answer cut off mid-body as a network error", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('[{"id":1,');
      setTimeout(() => res.destroy(), 10);
    });
    const { petstore } = client(server.baseUrl);
    const error = await failureOf(petstore.listPets({ limit: 1 }));
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).sent).toBe(true);
  });

  it("refuses an answer larger than 8 MiB", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("[" + " ".repeat(8 * 1024 * 1024) + "]");
    });
    const { petstore } = client(server.baseUrl);
    const error = await failureOf(petstore.listPets({ limit: 1 }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toBe(
      `the answer from ${new URL(server.origin).host} is larger than 8 MiB`,
    );
  });

  it("retries a GET whose connection is reset", async () => {
    let calls = 0;
    const server = await serve((req, res) => {
      if (++calls === 1) req.socket.destroy();
      else json(res, 200, "[]");
    });
    const { petstore, events } = client(server.baseUrl, {
      retry: DEFAULT_RETRY_POLICY,
      random: () => 0.5,
    });
    const result = await petstore.listPets({ limit: 1 });
    expect(result.data).toEqual([]);
    expect(events).toEqual([{ reason: "network", waitMs: 750, attempt: 2, maxAttempts: 5 }]);
  });

  it("reports a refused connection as a NetworkError that was not sent", async () => {
    const port = await unusedPort();
    const { petstore } = client(`http://127.0.0.1:${port}/v1`);
    const error = await failureOf(petstore.listPets({ limit: 1 }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect((error as NetworkError).sent).toBe(false);
    expect(error.message).toBe(`could not connect to 127.0.0.1:${port}: connection refused`);
  });

  it("repeats a POST whose connection was refused, since it never arrived", async () => {
    const port = await unusedPort();
    const { petstore, sleeps } = client(`http://127.0.0.1:${port}/v1`, {
      retry: { ...DEFAULT_RETRY_POLICY, limit: 2 },
      random: () => 0.5,
    });
    const error = await failureOf(petstore.createPet({ name: "Rex", categoryId: 1n }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(sleeps).toEqual([750, 1_500]);
  });

  it("retries a GET answered 503 after its Retry-After", async () => {
    let calls = 0;
    const server = await serve((_req, res) => {
      if (++calls === 1) {
        json(res, 503, '{"code":"unavailable","message":"try later","status":503}', {
          "retry-after": "1",
        });
      } else {
        json(res, 200, "[]");
      }
    });
    const { petstore, sleeps } = client(server.baseUrl, { retry: DEFAULT_RETRY_POLICY });
    await petstore.listPets({ limit: 1 });
    expect(sleeps).toEqual([1_250]);
    expect(server.requests).toHaveLength(2);
  });

  it("does not follow a redirect, and names only the origin it pointed to", async () => {
    const elsewhere = await serve((_req, res) => json(res, 200, "[]"));
    const server = await serve((_req, res) => {
      res.writeHead(307, { location: `${elsewhere.origin}/v1/pets?token=abc` });
      res.end();
    });
    const { petstore } = client(server.baseUrl);
    const error = await failureOf(petstore.listPets({ limit: 1 }));
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).exitCode).toBe(2);
    expect(error.message).toContain(`to ${elsewhere.origin};`);
    expect(error.message).not.toContain("token=abc");
    expect(elsewhere.requests).toEqual([]);
  });

  it("writes one debug line per attempt, with the rate limit and the key redacted", async () => {
    const server = await serve((_req, res) =>
      json(res, 200, "[]", {
        "x-ratelimit-limit": "60",
        "x-ratelimit-remaining": "59",
        "x-ratelimit-reset": "1795348860",
      }),
    );
    const { petstore, debugLines } = client(server.baseUrl, { now: () => 0 });
    await petstore.listPets({ limit: 3 });
    expect(debugLines).toEqual([
      `GET ${server.baseUrl}/pets?limit=3 -> 200 in 0 ms; rate limit 59/60 left, resets 2026-11-22T12:01:00.000Z; key psk_…2b1c`,
    ]);
    expect(petstore.lastRateLimit).toEqual({ limit: 60, remaining: 59, resetAt: 1795348860_000 });
  });

  it("never puts the key in an error message or a debug line, even when the service echoes it", async () => {
    const server = await serve((_req, res) =>
      json(
        res,
        401,
        JSON.stringify({ code: "unauthorized", message: `bad key ${KEY}`, status: 401 }),
        {
          "retry-after": KEY,
        },
      ),
    );
    const { petstore, debugLines } = client(server.baseUrl);
    const error = await failureOf(petstore.listPets({ limit: 1 }));
    expect(error.message).toBe(
      "the service did not accept the API key: 401 Unauthorized: bad key psk_…2b1c",
    );
    for (const text of [error.message, ...debugLines]) expect(text).not.toContain(KEY);
    expect(debugLines).toHaveLength(1);
  });
});

describe("key safety and the missing key", () => {
  function recordingTransport() {
    const urls: string[] = [];
    const transport: Transport = async (request) => {
      urls.push(request.url);
      return { status: 200, headers: {}, body: "[]" };
    };
    return { transport, urls };
  }

  it.each([
    ["https://api.example.test/v1", false, true],
    ["http://localhost:4010/v1", false, true],
    ["http://127.0.0.1:4010/v1", false, true],
    ["http://127.9.8.7/v1", false, true],
    ["http://[::1]:4010/v1", false, true],
    ["http://api.example.test/v1", false, false],
    ["http://10.0.0.5:4010/v1", false, false],
    ["http://localhost.evil.test/v1", false, false],
    ["http://api.example.test/v1", true, true],
  ])("%s with allowInsecure=%s sends: %s", async (baseUrl, allowInsecure, sends) => {
    const { transport, urls } = recordingTransport();
    const { petstore } = client(baseUrl, { transport, allowInsecure });
    const outcome = await petstore.listPets({ limit: 1 }).then(
      () => "sent",
      (error: unknown) => error,
    );
    if (sends) {
      expect(outcome).toBe("sent");
      expect(urls).toHaveLength(1);
    } else {
      expect(outcome).toBeInstanceOf(UsageError);
      expect((outcome as UsageError).hint).toContain("--allow-insecure");
      expect(urls).toEqual([]);
    }
  });

  it("sends nothing without a key, and says how to set one (exit 3)", async () => {
    const { transport, urls } = recordingTransport();
    const { petstore } = client("https://api.example.test/v1", { transport, apiKey: undefined });
    const error = await failureOf(petstore.listPets({ limit: 1 }));
    expect(error).toBeInstanceOf(PetstoreError);
    expect((error as PetstoreError).exitCode).toBe(3);
    expect((error as PetstoreError).hint).toContain("PETSTORE_API_KEY");
    expect(urls).toEqual([]);
  });

  it("refuses a base URL with credentials in it", () => {
    expect(() => client("https://user:pw@api.example.test/v1")).toThrow(UsageError);
  });
});
