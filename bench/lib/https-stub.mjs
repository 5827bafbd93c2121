#!/usr/bin/env node
/**
 * A stand-in for the service over https, for the bulk-import phase's comparison of two clients:
 * each `POST /v1/pets` is answered as serve answers an unlimited key (201, the pet with a new id
 * before its fields, X-RateLimit-*, Location, keep-alive), but nothing is stored and HTTP is read
 * by hand (requests framed by Content-Length, as every client sends them), so the server costs
 * little more than TLS and the clients' own cost decides their rate, as on a user's machine where
 * the service runs elsewhere. Anything else is answered 400 and the connection closed. The
 * certificate is the tests' self-signed one (test/fixtures/tls). Prints its https:// origin on
 * stdout once listening.
 *
 * node bench/lib/https-stub.mjs
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:tls";

const TLS_DIR = new URL("../../test/fixtures/tls/", import.meta.url);
const UNLIMITED = "2147483647";
const HEAD_END = "\r\n\r\n";
const BAD =
  "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 58\r\nconnection: close\r\n\r\n" +
  '{"code":"invalid_body","message":"not a pet","status":400}';
let nextId = 0;

function answer(body) {
  const id = ++nextId;
  // The request's own JSON object, with the id first, as serve writes a pet.
  const pet = `{"id":${id},${body.slice(1)}`;
  const reset = Math.floor(Date.now() / 60_000) * 60 + 60;
  return (
    `HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(pet)}\r\n` +
    `x-ratelimit-limit: ${UNLIMITED}\r\nx-ratelimit-remaining: ${UNLIMITED}\r\nx-ratelimit-reset: ${reset}\r\n` +
    `location: /v1/pets/${id}\r\ndate: ${new Date().toUTCString()}\r\nconnection: keep-alive\r\n\r\n${pet}`
  );
}

const server = createServer(
  {
    key: readFileSync(new URL("localhost.key", TLS_DIR)),
    cert: readFileSync(new URL("localhost.crt", TLS_DIR)),
    noDelay: true,
  },
  (socket) => {
    let buffered = "";
    socket.setEncoding("utf8");
    socket.on("error", () => socket.destroy());
    socket.on("data", (chunk) => {
      buffered += chunk;
      for (;;) {
        const end = buffered.indexOf(HEAD_END);
        if (end < 0) return;
        const head = buffered.slice(0, end);
        const length = /\r\ncontent-length: *(\d+)/i.exec(head);
        const bodyStart = end + HEAD_END.length;
        // Bodies are ASCII JSON here, so characters count bytes.
        const bodyEnd = bodyStart + Number(length?.[1] ?? 0);
        if (buffered.length < bodyEnd) return;
        const body = buffered.slice(bodyStart, bodyEnd);
        buffered = buffered.slice(bodyEnd);
        if (!head.startsWith("POST /v1/pets HTTP/1.1\r\n") || !body.startsWith('{"')) {
          socket.end(BAD);
          return;
        }
        socket.write(answer(body));
      }
    });
  },
);
server.on("tlsClientError", () => {});
server.listen(0, "127.0.0.1", () => {
  console.log(`https://127.0.0.1:${server.address().port}`);
});
process.on("SIGTERM", () => process.exit(0));
