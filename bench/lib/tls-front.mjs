#!/usr/bin/env node
/**
 * A TLS front for `petstore serve` (which speaks plain http), as a load balancer terminates TLS
 * before a service: each TLS connection is piped to its own TCP connection to the upstream, so
 * keep-alive holds end to end. Prints its https:// origin on stdout once listening. The
 * certificate is the tests' self-signed one (test/fixtures/tls); clients trust it through
 * NODE_EXTRA_CA_CERTS.
 *
 * node bench/lib/tls-front.mjs --upstream 127.0.0.1:PORT
 */
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { createServer } from "node:tls";
import { parseArgs } from "node:util";

export const TLS_DIR = new URL("../../test/fixtures/tls/", import.meta.url);
export const CERT_FILE = new URL("localhost.crt", TLS_DIR).pathname;

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const { values } = parseArgs({ options: { upstream: { type: "string" } } });
  const [host, port] = values.upstream.split(":");
  const server = createServer(
    {
      key: readFileSync(new URL("localhost.key", TLS_DIR)),
      cert: readFileSync(CERT_FILE),
      noDelay: true,
    },
    (clear) => {
      const upstream = connect({ host, port: Number(port), noDelay: true });
      const close = () => {
        clear.destroy();
        upstream.destroy();
      };
      clear.on("error", close).on("close", close);
      upstream.on("error", close).on("close", close);
      clear.pipe(upstream).pipe(clear);
    },
  );
  server.on("tlsClientError", () => {});
  server.listen(0, "127.0.0.1", () => {
    console.log(`https://127.0.0.1:${server.address().port}`);
  });
  process.on("SIGTERM", () => process.exit(0));
}
