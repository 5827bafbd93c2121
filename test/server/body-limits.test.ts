import { once } from "node:events";
import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../src/server/request-body.js";
import { call, startTestServer } from "./http.js";

const KEY = "body-limit-key";
let server: Awaited<ReturnType<typeof startTestServer>>;

beforeAll(async () => {
  server = await startTestServer({ keys: [`${KEY}:enterprise`] });
});
afterAll(() => server.close());

/**
 * Sends `head` then each chunk on a raw socket, and collects what the server
 * answers until it closes the connection. Write errors after the server has
 * closed are expected and ignored.
 */
function rawExchange(head: string, chunks: Buffer[]): Promise<string> {
  const { port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), "127.0.0.1");
    let received = "";
    socket.on("data", (data) => (received += data.toString("latin1")));
    socket.on("error", () => {});
    socket.on("close", () => resolve(received));
    socket.write(head);
    const writeNext = (index: number) => {
      if (index >= chunks.length || socket.destroyed) return;
      socket.write(chunks[index]!, () => writeNext(index + 1));
    };
    writeNext(0);
  });
}

function statusAndBody(response: string): { status: number; headers: string; body: string } {
  const split = response.indexOf("\r\n\r\n");
  const headers = response.slice(0, split);
  return { status: Number(headers.split(" ")[1]), headers, body: response.slice(split + 4) };
}

describe("request bodies over 1 MiB", () => {
  it("are refused from Content-Length alone, before any body arrives, and the connection closes", async () => {
    const response = await rawExchange(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${MAX_BODY_BYTES + 1}\r\n\r\n`,
      [],
    );
    const { status, headers, body } = statusAndBody(response);
    expect(status).toBe(413);
    expect(headers).toMatch(/\r\nConnection: close/i);
    expect(headers).toMatch(/\r\nX-RateLimit-Limit: 2147483647/i);
    expect(JSON.parse(body)).toMatchObject({ code: "payload_too_large", status: 413 });
  });

  it("are refused while a chunked body streams in", async () => {
    const chunk = Buffer.alloc(64 * 1024, "a");
    const framed = Buffer.concat([
      Buffer.from(`${chunk.length.toString(16)}\r\n`),
      chunk,
      Buffer.from("\r\n"),
    ]);
    const chunks = Array.from({ length: 20 }, () => framed);
    const response = await rawExchange(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      chunks,
    );
    const { status, body } = statusAndBody(response);
    expect(status).toBe(413);
    expect(JSON.parse(body)).toMatchObject({ code: "payload_too_large", status: 413 });
  });

  it("accepts a body of exactly 1 MiB and validates it", async () => {
    const prefix = '{"categoryId":1,"name":"';
    const suffix = '"}';
    const name = "n".repeat(MAX_BODY_BYTES - prefix.length - suffix.length);
    const body = prefix + name + suffix;
    expect(Buffer.byteLength(body)).toBe(MAX_BODY_BYTES);
    const answer = await call(server.url, "/v1/pets", { key: KEY, body });
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ code: "invalid_body" });
    expect(String((answer.json() as { message: string }).message)).toContain("name must be");
  });

  it("refuses a 1,000,000-digit categoryId as beyond int64 before converting it, naming the field", async () => {
    const prefix = '{"name":"Big","categoryId":';
    const digits = "9".repeat(1_000_000);
    const body = `${prefix}${digits}}`;
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    const answer = await call(server.url, "/v1/pets", { key: KEY, body });
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({
      code: "invalid_json",
      message: `the body's JSON is beyond the fake's limits: Integer of 1000000 digits for "categoryId" is out of int64 range (at most 20 digits are read) at line 1, column ${prefix.length + 1}`,
      status: 400n,
    });
  });

  it("still answers a 20-digit categoryId with the range message of invalid_body", async () => {
    const body = '{"name":"Big","categoryId":92233720368547758080}';
    const answer = await call(server.url, "/v1/pets", { key: KEY, body });
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ code: "invalid_body" });
    expect(String((answer.json() as { message: string }).message)).toMatch(
      /categoryId must be an integer from -9223372036854775808 to 9223372036854775807 .*; got 92233720368547758080/,
    );
  });

  it("leaves the server serving other clients afterwards", async () => {
    const answer = await call(server.url, "/v1/pets", { key: KEY });
    expect(answer.status).toBe(200);
  });
});

describe("a body its client leaves before it ends", () => {
  it("is not answered as a request, creates nothing, and the server keeps serving", async () => {
    const posts = () => server.requests({ method: "POST" }).length;
    const before = { posts: posts(), created: server.stats().byStatus[201] };
    const socket = connect(Number(new URL(server.url).port), "127.0.0.1");
    socket.on("error", () => {});
    await once(socket, "connect");
    socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"Half`,
    );
    await sleep(50);
    socket.destroy();
    // A request sent after the close is answered after the server has seen the close.
    const answer = await call(server.url, "/v1/pets", { key: KEY });
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain("Half");
    // Not answered as a request (node:http answers the broken framing on the socket).
    expect(posts()).toBe(before.posts);
    expect(server.stats().byStatus[201]).toBe(before.created);
  });
});
