/**
 * Raw HTTP/1.1 requests, most of them broken on purpose, for fuzzing the fake
 * over sockets: bad framing, bad chunked encoding, huge numbers, deep nesting,
 * invalid UTF-8, odd methods, odd and missing headers, unmet Expect headers.
 */
import fc from "fast-check";
import { bodies } from "./hostile-bodies.js";

export interface RawRequest {
  /** The bytes to send, in pieces (views of shared buffers: a sample holds little memory). */
  parts: Buffer[];
  /** The first request is a HEAD: its answer has no body. */
  head: boolean;
  /** Fully framed, so some answer must come back (else the client may be left without one). */
  complete: boolean;
  /** What was generated, for a failure message. */
  label: string;
}

const METHODS = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("GET", "POST", "HEAD") },
  {
    weight: 2,
    arbitrary: fc.constantFrom("PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "PROPFIND"),
  },
  { weight: 1, arbitrary: fc.constantFrom("get", "FOO", "G\u0000T", "P OST", "", "M".repeat(300)) },
);

const TARGETS = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom("/v1/pets", "/v1/pets?limit=2", "/v1/pets/1") },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "*",
      "example.com:443",
      "http://x/v1/pets",
      "/v1/openapi.json",
      "/v1/pets/" + "9".repeat(1000),
      "/v1/pets/-9223372036854775809",
      "/v1/pets?limit=" + "1".repeat(500),
      "/v1/pets?status=%zz&limit=%00",
      "/%2e%2e/%2e%2e/etc/passwd",
      "/v1/pets/\u00e9\u00ff",
      "/" + "a".repeat(9000),
      "",
    ),
  },
  {
    weight: 1,
    arbitrary: fc.string({ unit: "binary-ascii", maxLength: 40 }).map((s) => "/" + s),
  },
);

const VERSIONS = fc.oneof(
  { weight: 8, arbitrary: fc.constant("HTTP/1.1") },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "HTTP/1.0",
      "HTTP/2.0",
      "HTTP/0.9",
      "HTTP/1.2",
      "HTTP/1.1 x",
      "",
      "http/1.1",
    ),
  },
);

const HOSTS = fc.oneof(
  { weight: 6, arbitrary: fc.constant(["Host: 127.0.0.1"]) },
  {
    weight: 2,
    arbitrary: fc.constantFrom([], ["Host:"], ["Host: a", "Host: b"], ["Host: " + "h".repeat(300)]),
  },
);

const AUTHS = (key: string, freeKey: string) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant([`Authorization: Bearer ${key}`]) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        [],
        [`Authorization: Bearer ${freeKey}`],
        ["Authorization: Bearer nope"],
        ["Authorization: Bearer"],
        ["Authorization: Basic eDp5"],
        [`Authorization: Bearer ${"k".repeat(5000)}`],
        [`Authorization: Bearer ${key}`, "Authorization: Bearer other"],
      ),
    },
  );

const ODD_HEADERS = fc.oneof(
  { weight: 6, arbitrary: fc.constant([] as string[]) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      ["Expect: 100-continue"],
      ["Expect: 200-ok"],
      ["Expect: \u00ff"],
      ["Connection: upgrade", "Upgrade: websocket"],
      ["Connection: upgrade", "Upgrade: h2c", "HTTP2-Settings: AAMAAABkAAQAAP__"],
      ["X-No-Colon"],
      ["X-Space : before colon"],
      [" folded: line"],
      ["X-Fold: a", " continued"],
      ["Bad\u0001Name: x"],
      ["X-Ctl: a\u0000b"],
      ["X-Latin: caf\u00e9 \u00ff\u0080"],
      ["X-Big: " + "b".repeat(20_000)],
      Array.from({ length: 300 }, (_, i) => `X-Many-${i}: ${i}`),
      ["Content-Type: text/plain"],
      ["Content-Type: application/json; charset=latin1"],
    ),
  },
);

type Framing =
  | "length"
  | "short-length"
  | "long-length"
  | "bad-length"
  | "length-and-chunked"
  | "chunked"
  | "chunked-bad-size"
  | "chunked-unterminated"
  | "chunked-extension"
  | "chunked-huge-size"
  | "none"
  | "pipelined";

const FRAMINGS = fc.constantFrom<Framing>(
  "length",
  "length",
  "length",
  "short-length",
  "long-length",
  "bad-length",
  "length-and-chunked",
  "chunked",
  "chunked",
  "chunked-bad-size",
  "chunked-unterminated",
  "chunked-extension",
  "chunked-huge-size",
  "none",
  "pipelined",
);

const EOLS = fc.oneof(
  { weight: 12, arbitrary: fc.constant("\r\n") },
  { weight: 1, arbitrary: fc.constantFrom("\n", "\r") },
);

function chunked(body: Buffer, extension = ""): Buffer[] {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += 4096) {
    const piece = body.subarray(at, at + 4096);
    parts.push(Buffer.from(`${piece.length.toString(16)}${extension}\r\n`), piece, CRLF);
  }
  parts.push(Buffer.from("0\r\n\r\n"));
  return parts;
}

const CRLF = Buffer.from("\r\n");

/** The body and its framing headers; `complete` false when the server is left waiting. */
function frame(
  framing: Framing,
  body: Buffer,
): { headers: string[]; payload: Buffer[]; complete: boolean } {
  const length = [`Content-Length: ${body.length}`];
  const te = ["Transfer-Encoding: chunked"];
  const framed = (headers: string[], payload: Buffer[], complete = true) => ({
    headers,
    payload,
    complete,
  });
  switch (framing) {
    case "length":
    case "pipelined":
      return framed(length, [body]);
    case "short-length":
      return framed([`Content-Length: ${body.length + 10}`], [body], false);
    case "long-length":
      return framed([`Content-Length: ${Math.max(0, body.length - 3)}`], [body]);
    case "bad-length":
      return framed(["Content-Length: -1", "Content-Length: 1x"], [body]);
    case "length-and-chunked":
      return framed([...length, ...te], chunked(body));
    case "chunked":
      return framed(te, chunked(body));
    case "chunked-bad-size":
      return framed(te, [Buffer.from("zz\r\n"), body]);
    case "chunked-unterminated":
      return framed(te, chunked(body).slice(0, -1), false);
    case "chunked-extension":
      return framed(te, chunked(body, ';ext="v"'));
    case "chunked-huge-size":
      return framed(te, [Buffer.from("ffffffffffffffffff\r\nx\r\n")]);
    case "none":
      return framed([], [body]);
  }
}

const sizeOf = (parts: Buffer[]) => parts.reduce((sum, part) => sum + part.length, 0);

/**
 * Requests for the fake, with `key` an unlimited key and `freeKey` a free-plan
 * one: a third are well-formed POSTs of hostile bodies (so they reach the JSON
 * parser; one in twenty-five of those is a 1,000,000-digit integer), the rest
 * are broken anywhere.
 */
export function malformedRequests(key: string, freeKey: string): fc.Arbitrary<RawRequest> {
  return fc.oneof(
    { weight: 1, arbitrary: hostileBodies(key) },
    { weight: 2, arbitrary: brokenRequests(key, freeKey) },
  );
}

function hostileBodies(key: string): fc.Arbitrary<RawRequest> {
  return fc
    .record({ body: bodies(4), chunked: fc.boolean() })
    .map(({ body, chunked: isChunked }) => {
      const framed = frame(isChunked ? "chunked" : "length", body);
      const lines = [
        "POST /v1/pets HTTP/1.1",
        "Host: 127.0.0.1",
        `Authorization: Bearer ${key}`,
        "Content-Type: application/json",
        ...framed.headers,
      ];
      return {
        parts: [Buffer.from(lines.join("\r\n") + "\r\n\r\n"), ...framed.payload],
        head: false,
        complete: true,
        label: `a POST of ${sizeOf(framed.payload)} body bytes: ${JSON.stringify(body.toString("latin1", 0, 100))}`,
      };
    });
}

function brokenRequests(key: string, freeKey: string): fc.Arbitrary<RawRequest> {
  return fc
    .record({
      method: METHODS,
      target: TARGETS,
      version: VERSIONS,
      host: HOSTS,
      auth: AUTHS(key, freeKey),
      odd: ODD_HEADERS,
      contentType: fc.constantFrom(
        [],
        ["Content-Type: application/json"],
        ["Content-Type: application/json"],
      ),
      body: bodies(1),
      framing: FRAMINGS,
      eol: EOLS,
    })
    .map(({ method, target, version, host, auth, odd, contentType, body, framing, eol }) => {
      const framed = frame(framing, body);
      const lines = [
        `${method} ${target} ${version}`.trimEnd(),
        ...host,
        ...auth,
        ...contentType,
        ...odd,
        ...framed.headers,
      ];
      const parts = [Buffer.from(lines.join(eol) + eol + eol, "latin1"), ...framed.payload];
      if (framing === "pipelined") {
        parts.push(
          Buffer.from(`GET /v1/pets/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`),
        );
      }
      // After an Upgrade request node:http may take the rest for the other protocol and
      // wait for more; a client that then hangs up is left without an answer, as with a
      // truncated body.
      const upgrade = odd.some((line) => line.startsWith("Upgrade:"));
      return {
        parts,
        head: method === "HEAD",
        complete: framed.complete && !upgrade,
        label: `${JSON.stringify(lines.join(eol).slice(0, 300))} +${sizeOf(framed.payload)} body bytes (${framing})`,
      };
    });
}
