#!/usr/bin/env node
/**
 * A stand-in for the service over https, for the bulk-import phase's comparison of two clients:
 * POST /v1/pets is answered as serve answers an unlimited key (201, the Pet with a new id,
 * X-RateLimit-*, Location), but nothing is stored and the body is only parsed, so the server
 * costs little CPU and the clients' own cost decides their rate, as on a user's machine where the
 * service runs elsewhere. The certificate is the tests' self-signed one (test/fixtures/tls).
 * Prints its https:// origin on stdout once listening.
 *
 * node bench/lib/https-stub.mjs
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:https";

const TLS_DIR = new URL("../../test/fixtures/tls/", import.meta.url);
const UNLIMITED = "2147483647";
let nextId = 0;

const server = createServer(
  {
    key: readFileSync(new URL("localhost.key", TLS_DIR)),
    cert: readFileSync(new URL("localhost.crt", TLS_DIR)),
    noDelay: true,
  },
  (req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      let pet;
      try {
        pet = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        pet = undefined;
      }
      if (req.method !== "POST" || req.url !== "/v1/pets" || typeof pet?.name !== "string") {
        res.writeHead(400, { "content-type": "application/json" });
        res.end('{"code":"invalid_body","message":"not a pet","status":400}');
        return;
      }
      const id = ++nextId;
      const body = JSON.stringify({
        id,
        name: pet.name,
        categoryId: pet.categoryId,
        status: pet.status ?? "available",
      });
      res.writeHead(201, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        "x-ratelimit-limit": UNLIMITED,
        "x-ratelimit-remaining": UNLIMITED,
        "x-ratelimit-reset": String(Math.floor(Date.now() / 60_000) * 60 + 60),
        location: `/v1/pets/${id}`,
      });
      res.end(body);
    });
  },
);
server.on("tlsClientError", () => {});
server.listen(0, "127.0.0.1", () => {
  console.log(`https://127.0.0.1:${server.address().port}`);
});
process.on("SIGTERM", () => process.exit(0));
