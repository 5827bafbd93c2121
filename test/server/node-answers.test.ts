/**
 * Requests that node:http would answer by itself (no Host, an unknown Expect,
 * CONNECT, broken framing) get the fake's Error body and rate-limit headers too.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock, startTestServer } from "./http.js";

const KEY = "node-answers-key";
const KEY_SPEC = `${KEY}:pro`;
/** 12:00:01 UTC: the minute window ends 59 s later. */
const NOON = Date.UTC(2030, 0, 15, 12, 0, 1);
const MINUTE_END_S = Date.UTC(2030, 0, 15, 12, 1, 0) / 1000;
let server: Awaited<ReturnType<typeof startTestServer>>;

beforeAll(async () => {
  server = await startTestServer({ keys: [KEY_SPEC], clock: manualClock(NOON) });
});
afterAll(() => server.close());

interface RawAnswer {
  /** Interim (1xx) status lines, in order. */
  interim: number[];
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `text`, half-closes, and parses what comes back once the server closes. */
function exchange(text: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1");
    let received = "";
    socket.on("data", (data) => (received += data.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => {
      const interim: number[] = [];
      let rest = received;
      while (/^HTTP\/1\.1 1\d\d /.test(rest)) {
        interim.push(Number(rest.slice(9, 12)));
        rest = rest.slice(rest.indexOf("\r\n\r\n") + 4);
      }
      const split = rest.indexOf("\r\n\r\n");
      const [statusLine = "", ...lines] = rest.slice(0, split).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        interim,
        status: Number(statusLine.split(" ")[1]),
        headers,
        body: rest.slice(split + 4),
      });
    });
    socket.end(Buffer.from(text, "latin1"));
  });
}

function expectErrorAnswer(answer: RawAnswer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers["content-type"]).toBe("application/json");
  expect(Number(answer.headers["content-length"])).toBe(Buffer.byteLength(answer.body));
  const body = JSON.parse(answer.body) as { code: string; message: string; status: number };
  expect(body).toMatchObject({ code, status });
  expect(body.message.length).toBeGreaterThan(10);
}

describe("answers node:http would give by itself", () => {
  it("a request without Host gets a 400 Error body with the key's rate-limit headers", async () => {
    const answer = await exchange(`GET /v1/pets HTTP/1.1\r\nAuthorization: Bearer ${KEY}\r\n\r\n`);
    expectErrorAnswer(answer, 400, "bad_request");
    expect(JSON.parse(answer.body)).toMatchObject({
      message: "an HTTP/1.1 request must have a Host header",
    });
    expect(answer.headers).toMatchObject({
      "x-ratelimit-limit": "300",
      "x-ratelimit-reset": String(MINUTE_END_S),
      connection: "close",
    });
    expect(Number(answer.headers["x-ratelimit-remaining"])).toBeLessThan(300);
  });

  it("an HTTP/1.0 request without Host is still served", async () => {
    const answer = await exchange(
      `GET /v1/pets?limit=1 HTTP/1.0\r\nAuthorization: Bearer ${KEY}\r\n\r\n`,
    );
    expect(answer.status).toBe(200);
  });

  it("an Expect other than 100-continue gets 417 expectation_failed", async () => {
    const answer = await exchange(
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nExpect: 200-ok\r\n\r\n`,
    );
    expectErrorAnswer(answer, 417, "expectation_failed");
    expect(answer.headers["x-ratelimit-limit"]).toBe("300");
    expect(answer.headers.connection).toBe("close");
  });

  it("Expect: 100-continue is met and the pet is created", async () => {
    const body = '{"name":"Eager","categoryId":1}';
    const answer = await exchange(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(answer.interim).toEqual([100]);
    expect(answer.status).toBe(201);
  });

  it("CONNECT gets a 405 Error body instead of a closed connection", async () => {
    const answer = await exchange(
      `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nAuthorization: Bearer ${KEY}\r\n\r\n`,
    );
    expectErrorAnswer(answer, 405, "method_not_allowed");
    expect(JSON.parse(answer.body)).toMatchObject({
      message: "CONNECT is not allowed: the fake is not a proxy",
    });
    expect(answer.headers).toMatchObject({
      allow: "GET, HEAD, POST",
      "x-ratelimit-limit": "300",
      connection: "close",
    });
  });

  it("CONNECT without a key is limited by address like any request without one", async () => {
    const answer = await exchange(
      `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n`,
    );
    expectErrorAnswer(answer, 405, "method_not_allowed");
    expect(answer.headers["x-ratelimit-limit"]).toBe("60");
  });

  it("a chunked body with a broken chunk size gets a 400 Error body", async () => {
    const answer = await exchange(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    );
    expectErrorAnswer(answer, 400, "bad_request");
    expect(answer.headers["x-ratelimit-limit"]).toBe("300");
  });

  it("an HTTP/2 preface gets a 400 Error body", async () => {
    const answer = await exchange("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    expectErrorAnswer(answer, 400, "bad_request");
  });
});
