import { describe, expect, it } from "vitest";
import { realTimers } from "../../src/bulk/pacer.js";
import { Outcomes } from "../../src/bulk/outcomes.js";
import { createPoster, RowSender, type Poster } from "../../src/bulk/row-sender.js";
import type { Row } from "../../src/bulk/rows.js";
import { createTestIO } from "../test-io.js";
import { DEFAULT_RETRY_POLICY } from "../../src/client/retry.js";
import { createSender } from "../../src/client/send.js";
import type { Transport, TransportRequest } from "../../src/client/transport.js";
import {
  NetworkError,
  OutcomeUnknownError,
  PetstoreError,
  TlsError,
  UsageError,
} from "../../src/errors.js";

const options = {
  baseUrl: "http://127.0.0.1:1/v1",
  apiKey: "k-123456789",
  timeoutMs: 1000,
  now: () => 0,
  userAgent: "petstore-test",
  allowInsecure: false,
};

/** The bulk add's poster over the client's one `send`, on `transport`. */
function poster(transport: Transport) {
  return createPoster(createSender({ ...options, transport }), DEFAULT_RETRY_POLICY);
}
const summary = { method: "POST" as const, url: "http://127.0.0.1:1/v1/pets" };

function posterAnswering(status: number, body: string, seen: TransportRequest[] = []) {
  return poster((request) => {
    seen.push(request);
    return Promise.resolve({ status, headers: { "content-type": "application/json" }, body });
  });
}

describe("one POST of a row", () => {
  it("sends the row with the key, the type and the exact length", async () => {
    const seen: TransportRequest[] = [];
    await posterAnswering(201, '{"id":1}', seen)('{"name":"Zoë","categoryId":1}');
    expect(seen).toEqual([
      {
        method: "POST",
        url: "http://127.0.0.1:1/v1/pets",
        headers: {
          accept: "application/json",
          authorization: "Bearer k-123456789",
          "user-agent": "petstore-test",
          "content-type": "application/json",
          "content-length": "30",
        },
        body: '{"name":"Zoë","categoryId":1}',
        timeoutMs: 1000,
      },
    ]);
  });

  it("reads the new id exactly, however the Pet is written, and only an int64 one", async () => {
    const cases: Array<[string, bigint | undefined]> = [
      ['{"id":9223372036854775807,"name":"a","categoryId":1}', 9223372036854775807n],
      ['{"id":9223372036854775808,"name":"a","categoryId":1}', undefined],
      ['{"id":42}', 42n],
      ['{ "name": "a", "id": 9007199254740993 }', 9007199254740993n],
      ['{"name":"a","id":-1}', -1n],
      ['{"id":"7"}', undefined],
      ["not json", undefined],
    ];
    for (const [body, id] of cases) {
      const attempt = await posterAnswering(201, body)("{}");
      expect(attempt.result.kind, body).toBe("added");
      expect(attempt.result.kind === "added" ? attempt.result.id : "none", body).toBe(id);
      expect(attempt.counted).toBe("yes");
    }
  });

  it("stops the run at a certificate no retry can change; the row failed, certainly not sent", async () => {
    const tls = new TlsError("TLS connection to h failed: self-signed certificate", summary, false);
    const attempt = await poster(() => Promise.reject(tls))("{}");
    expect(attempt.result).toEqual({ kind: "failed", error: tls, stop: tls });
    expect(attempt.counted).toBe("no");
    const refused = new NetworkError("could not connect", summary, false);
    const again = await poster(() => Promise.reject(refused))("{}");
    expect(again.result).toMatchObject({ kind: "again", rateLimited: false });
  });

  it("fails a row answered 507 (nothing stored) and stops the run, instead of calling it unknown", async () => {
    const attempt = await posterAnswering(
      507,
      '{"code":"insufficient_storage","message":"the disk is full","status":507}',
    )("{}");
    expect(attempt.result.kind).toBe("failed");
    expect(attempt.result.kind === "failed" && attempt.result.stop?.exitCode).toBe(6);
    expect(attempt.counted).toBe("yes");
  });

  it("turns a refusal into the client's typed error, counted unless it was a 429", async () => {
    const refused = await posterAnswering(400, '{"code":"invalid_body","message":"bad"}')("{}");
    expect(refused.result).toMatchObject({ kind: "failed" });
    expect(refused.counted).toBe("yes");
    const limited = await posterAnswering(429, '{"code":"rate_limited","message":"slow"}')("{}");
    expect(limited.result).toMatchObject({ kind: "again", rateLimited: true });
    expect(limited.counted).toBe("no");
  });

  it("calls a request that may have been sent and got no answer unknown, never again", async () => {
    const reset = new NetworkError("h reset the connection", summary, true);
    const attempt = await poster(() => Promise.reject(reset))("{}");
    expect(attempt.result.kind).toBe("unknown");
    expect(attempt.result.kind === "unknown" && attempt.result.error).toBeInstanceOf(
      OutcomeUnknownError,
    );
    expect(attempt.counted).toBe("maybe");
    const gateway = await posterAnswering(502, '{"code":"bad_gateway","message":"x"}')("{}");
    expect(gateway.result).toMatchObject({ kind: "unknown" });
    expect(gateway.counted).toBe("yes");
  });

  it("stops the run, the row certainly not sent, when the request cannot be sent at all", async () => {
    const refused = new UsageError("the request cannot be sent: invalid authorization header");
    const attempt = await poster(() => Promise.reject(refused))("{}");
    expect(attempt.result).toEqual({ kind: "failed", error: refused, stop: refused });
    expect(attempt.counted).toBe("no");
  });
});

describe("the rows a sender reads", () => {
  it("are one ahead per request in flight (at most concurrency), never more, and none once the run stops", async () => {
    let read = 0;
    let answered = 0;
    let mostAhead = 0;
    let inFlight = 0;
    let mostInFlight = 0;
    async function* rows(): AsyncGenerator<Row> {
      for (let row = 1; row <= 300; row++) {
        read++;
        mostAhead = Math.max(mostAhead, read - answered);
        yield { row, line: row + 1, body: "{}", digest: "0123456789abcdef" };
      }
    }
    const plan = { rows: 300, toSend: 300, invalid: 0, previouslyAdded: 0, heldUnknown: 0 };
    const outcomes = new Outcomes(plan, createTestIO(), Date.now);
    const sender = new RowSender({
      timers: realTimers,
      random: Math.random,
      retry: DEFAULT_RETRY_POLICY,
      results: undefined,
      outcomes,
      url: "http://127.0.0.1:1/v1/pets",
    });
    const post: Poster = async () => {
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight--;
      if (++answered === 100) sender.stop(new PetstoreError("stopped here", 1));
      const answer = { status: 201, headers: {}, body: '{"id":1}', durationMs: 1 };
      return { result: { kind: "added", id: 1n }, counted: "yes", answer };
    };
    await sender.send(rows(), post, 4);
    expect(mostInFlight).toBe(4);
    expect(mostAhead).toBeLessThanOrEqual(8);
    expect(answered).toBeGreaterThanOrEqual(100);
    expect(answered).toBeLessThanOrEqual(104);
    expect(read).toBeLessThanOrEqual(answered + 4);
  });
});
