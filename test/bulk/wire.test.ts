import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { AnswerFormatError, AnswerParser } from "../../src/bulk/http1.js";
import { createWireTransport } from "../../src/bulk/wire-transport.js";
import { NetworkError, TimeoutError } from "../../src/errors.js";

function parseAll(pieces: string[]) {
  const parser = new AnswerParser(1024);
  let answer;
  for (const piece of pieces) answer = parser.push(Buffer.from(piece, "latin1")) ?? answer;
  return answer;
}

describe("AnswerParser", () => {
  it("reads a Content-Length body arriving in pieces, with lower-cased and joined headers", () => {
    const text = "HTTP/1.1 201 Created\r\nContent-Length: 5\r\nX-A: 1\r\nx-a: 2\r\n\r\nhello";
    for (let cut = 1; cut < text.length; cut++) {
      const answer = parseAll([text.slice(0, cut), text.slice(cut)]);
      expect(answer).toMatchObject({ status: 201, keepAlive: true, headers: { "x-a": "1, 2" } });
      expect(answer!.body.toString()).toBe("hello");
    }
  });

  it("reads an answer that comes whole in one chunk as it reads the same answer in pieces", () => {
    const answers = [
      "HTTP/1.1 201 Created\r\nContent-Length: 5\r\nX-A: 1\r\nx-a: 2\r\n\r\nhello",
      "HTTP/1.1 429 Too Many Requests\r\nretry-after: 3\r\ncontent-length: 2\r\nConnection: close\r\n\r\n{}",
      "HTTP/1.0 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n",
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
      "HTTP/1.1 204 No Content\r\n\r\n",
    ];
    for (const text of answers) {
      const whole = parseAll([text]);
      const pieces = parseAll([...text]);
      expect(whole, text).toEqual(pieces);
      expect(whole!.body.toString()).toBe(pieces!.body.toString());
    }
    expect(parseAll([answers[1]!])).toMatchObject({ status: 429, keepAlive: false });
  });

  it("keeps header names that Object.prototype has as plain data, and drops __proto__", () => {
    const answer = parseAll([
      "HTTP/1.1 200 OK\r\nConstructor: a\r\nconstructor: b\r\ntoString: c\r\n__proto__: x\r\nContent-Length: 0\r\n\r\n",
    ])!;
    expect(answer.headers.constructor).toBe("a, b");
    expect(answer.headers.tostring).toBe("c");
    expect(Object.getPrototypeOf(answer.headers)).toBe(Object.prototype);
    expect(Object.keys(answer.headers)).toEqual(["constructor", "tostring", "content-length"]);
  });

  it("reads a chunked body with extensions and trailers, after a 100 Continue", () => {
    const answer = parseAll([
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
      "3;x=y\r\nabc\r\n",
      "2\r\nde\r\n0\r\nTrailer: t\r\n\r\n",
    ]);
    expect(answer!.status).toBe(200);
    expect(answer!.body.toString()).toBe("abcde");
  });

  it("reads a body framed by the end of the connection, and never keeps that connection", () => {
    const parser = new AnswerParser(1024);
    expect(parser.push(Buffer.from("HTTP/1.0 200 OK\r\n\r\npart"))).toBeUndefined();
    expect(parser.push(Buffer.from("ial"))).toBeUndefined();
    const answer = parser.end();
    expect(answer?.body.toString()).toBe("partial");
    expect(answer?.keepAlive).toBe(false);
  });

  it("honours Connection: close and knows 204 has no body", () => {
    expect(
      parseAll(["HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"])?.keepAlive,
    ).toBe(false);
    expect(parseAll(["HTTP/1.1 204 No Content\r\n\r\n"])?.body.length).toBe(0);
  });

  it("refuses what it cannot trust: a bad status line, a bad length, a body too large, extra bytes", () => {
    const fails = (text: string) => () => parseAll([text]);
    expect(fails("HTP/1.1 200 OK\r\n\r\n")).toThrow(AnswerFormatError);
    expect(fails("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n")).toThrow("Content-Length");
    expect(fails("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n")).toThrow("too large");
    expect(fails("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab")).toThrow("more bytes");
    expect(fails("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n")).toThrow("transfer coding");
  });
});

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A raw TCP server; `onRequest` gets each request's text (one request per read, small requests). */
async function rawServer(onRequest: (socket: Socket, text: string, connection: number) => void) {
  let connections = 0;
  server = createServer((socket) => {
    const connection = ++connections;
    socket.on("data", (data) => onRequest(socket, data.toString("latin1"), connection));
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/v1/pets`, connections: () => connections };
}

const post = (url: string, timeoutMs = 2_000) => ({
  method: "POST" as const,
  url,
  headers: { "content-type": "application/json", "content-length": "2" },
  body: "{}",
  timeoutMs,
});

describe("wire transport", () => {
  it("sends one well-formed request per call and reuses the connection", async () => {
    const seen: string[] = [];
    const { url, connections } = await rawServer((socket, text) => {
      seen.push(text);
      socket.write(
        'HTTP/1.1 201 Created\r\nContent-Length: 8\r\nX-RateLimit-Remaining: 5\r\n\r\n{"id":1}',
      );
    });
    const { transport, close } = createWireTransport({ maxSockets: 1 });
    try {
      for (let i = 0; i < 3; i++) {
        const answer = await transport(post(url));
        expect(answer).toEqual({
          status: 201,
          headers: expect.objectContaining({ "x-ratelimit-remaining": "5" }),
          body: '{"id":1}',
        });
      }
      expect(connections()).toBe(1);
      expect(seen[0]).toMatch(
        /^POST \/v1\/pets HTTP\/1\.1\r\nHost: 127\.0\.0\.1:\d+\r\ncontent-type: application\/json\r\ncontent-length: 2\r\n\r\n\{\}$/,
      );
    } finally {
      close();
    }
  });

  it("says a refused connection was not sent", async () => {
    const { url } = await rawServer(() => {});
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    const { transport, close } = createWireTransport({ maxSockets: 1 });
    const error = await transport(post(url)).catch((e: unknown) => e);
    close();
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).sent).toBe(false);
  });

  it("says a connection closed after the request, without an answer, may have been sent", async () => {
    const { url } = await rawServer((socket) => socket.destroy());
    const { transport, close } = createWireTransport({ maxSockets: 1 });
    const error = await transport(post(url)).catch((e: unknown) => e);
    close();
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).sent).toBe(true);
  });

  it("times out a silent service, and says the request was sent", async () => {
    const { url } = await rawServer(() => {});
    const { transport, close } = createWireTransport({ maxSockets: 1 });
    const error = await transport(post(url, 200)).catch((e: unknown) => e);
    close();
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).sent).toBe(true);
  });

  it("does not reuse a connection the service closed, nor one after Connection: close", async () => {
    const { url, connections } = await rawServer((socket, _text, connection) => {
      socket.end(
        `HTTP/1.1 201 Created\r\nConnection: close\r\nContent-Length: 1\r\n\r\n${connection}`,
      );
    });
    const { transport, close } = createWireTransport({ maxSockets: 2 });
    const bodies = [];
    for (let i = 0; i < 3; i++) bodies.push((await transport(post(url))).body);
    close();
    expect(bodies).toEqual(["1", "2", "3"]);
    expect(connections()).toBe(3);
  });

  it("queues requests beyond maxSockets and serves them as connections free up", async () => {
    const { url, connections } = await rawServer((socket) => {
      setTimeout(() => socket.write("HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok"), 20);
    });
    const { transport, close } = createWireTransport({ maxSockets: 2 });
    const answers = await Promise.all(Array.from({ length: 6 }, () => transport(post(url))));
    close();
    expect(answers.map((a) => a.body)).toEqual(Array(6).fill("ok"));
    expect(connections()).toBe(2);
  });
});
