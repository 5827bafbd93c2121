/**
 * The CLI over https:// with a real (self-signed, test-only) certificate: the
 * one-shot client transport (`list`, `add --name`) and the undici pool of the
 * bulk add (`add --from`), against the real app of the fake mounted on a node:https
 * server in this process. The child trusts the certificate through NODE_EXTRA_CA_CERTS;
 * without it, both paths must fail with a TLS message and the network exit code.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/errors.js";
import { parseJson } from "../../src/schema/json.js";
import { createApp } from "../../src/server/app.js";
import { appOptions } from "../server/app-options.js";
import { KeyInput } from "../../src/server/keys.js";
import { createMemoryStore } from "../../src/server/store/memory.js";
import { demoPets } from "../../src/server/demo-pets.js";
import { REPO_ROOT } from "../server/cli-build.js";
import { PRO_KEY, runCli, tempDir, writeNdjsonRows, type CliResult } from "./harness.js";

const TLS_DIR = join(REPO_ROOT, "test", "fixtures", "tls");
const CERT_FILE = join(TLS_DIR, "localhost.crt");
const SEEDED_PETS = 3;

/** What the server saw of one request. */
interface Seen {
  method: string;
  path: string;
  authorization: string | undefined;
  socket: Socket;
}

let app: ReturnType<typeof createApp>;
let server: Server;
let baseUrl: string;
let home: ReturnType<typeof tempDir>;
let seen: Seen[] = [];
/** TCP connections the server accepted (each handshake attempt is one). */
let connections = 0;

beforeAll(async () => {
  app = createApp(
    createMemoryStore(demoPets(SEEDED_PETS)),
    appOptions({
      keys: [KeyInput.parse(`${PRO_KEY}:pro`)],
    }),
  );
  server = createServer(
    { key: readFileSync(join(TLS_DIR, "localhost.key")), cert: readFileSync(CERT_FILE) },
    (req, res) => {
      seen.push({
        method: req.method ?? "",
        path: req.url ?? "",
        authorization: req.headers.authorization,
        socket: req.socket,
      });
      app(req, res);
    },
  );
  server.on("clientError", app.handleClientError);
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  baseUrl = `https://127.0.0.1:${address.port}/v1`;
  home = tempDir();
});

afterAll(async () => {
  app?.close();
  if (server !== undefined) {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
  home?.remove();
});

beforeEach(() => {
  seen = [];
  connections = 0;
});

function env(trustCertificate = true): NodeJS.ProcessEnv {
  return {
    PETSTORE_BASE_URL: baseUrl,
    PETSTORE_API_KEY: PRO_KEY,
    PETSTORE_CONFIG_DIR: home.path,
    NO_COLOR: "1",
    ...(trustCertificate ? { NODE_EXTRA_CA_CERTS: CERT_FILE } : {}),
  };
}

function posts(): Seen[] {
  return seen.filter((request) => request.method === "POST" && request.path === "/v1/pets");
}

/** `count` NDJSON rows, written to a new file in the temp dir. */
function ndjsonRows(name: string, count: number): string {
  return writeNdjsonRows(home.path, name, count, "tls");
}

/** The last results line of each row, by row number. */
function lastOutcomes(path: string): Map<number, { outcome?: string; id?: bigint }> {
  const last = new Map<number, { outcome?: string; id?: bigint }>();
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line === "") continue;
    const record = parseJson(line) as { row?: bigint; outcome?: string; id?: bigint };
    if (record.row !== undefined) last.set(Number(record.row), record);
  }
  return last;
}

function expectTlsFailure(run: CliResult): void {
  expect(run.code, run.stderr).toBe(EXIT.NETWORK);
  expect(run.stderr).toMatch(/TLS connection to 127\.0\.0\.1:\d+ failed: .*certificate/);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(run.stderr).toContain("NODE_EXTRA_CA_CERTS");
}

describe("the CLI over https:// with a trusted self-signed certificate", () => {
  it("lists the pets with `list --json`, sending the bearer key", async () => {
    const run = await runCli(["list", "--json"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const pets = parseJson(run.stdout) as Array<{ id: bigint; name: string }>;
    expect(pets.slice(0, SEEDED_PETS).map((pet) => pet.id)).toEqual([1n, 2n, 3n]);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((request) => request.authorization === `Bearer ${PRO_KEY}`)).toBe(true);
  });

  it("adds one pet with `add --name --category-id --json`", async () => {
    const run = await runCli(["add", "--name", "Rex", "--category-id", "1", "--json"], {
      env: env(),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^\{"id":\d+,"name":"Rex","categoryId":1,"status":"available"\}\n$/);
    expect(posts()).toHaveLength(1);
    expect(posts()[0]!.authorization).toBe(`Bearer ${PRO_KEY}`);
  });

  it("adds 50 NDJSON rows with `add --from` on at most --concurrency kept-alive connections", async () => {
    const rows = 50;
    const concurrency = 4;
    const from = ndjsonRows("rows.ndjson", rows);
    const resultsFile = join(home.path, "r.ndjson");
    const run = await runCli(
      ["add", "--from", from, "--results", resultsFile, "--concurrency", String(concurrency)],
      { env: env() },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(posts()).toHaveLength(rows);

    const last = lastOutcomes(resultsFile);
    expect([...last.keys()].sort((a, b) => a - b)).toEqual(
      Array.from({ length: rows }, (_, i) => i + 1),
    );
    expect([...last.values()].every((record) => record.outcome === "added")).toBe(true);
    expect(new Set([...last.values()].map((record) => record.id)).size).toBe(rows);

    const sockets = new Set(posts().map((request) => request.socket));
    expect(sockets.size).toBeLessThanOrEqual(concurrency);
  });
});

// A certificate that is not trusted fails the same way every time: no retries (one
// handshake for `list`; `add --from` stops at the first rows it started).
describe("the CLI over https:// without trusting the certificate", () => {
  it("`list` fails with a TLS message naming the certificate, exit NETWORK, no stack trace", async () => {
    const run = await runCli(["list"], { env: env(false) });
    expectTlsFailure(run);
    expect(run.stdout).toBe("");
    expect(seen).toHaveLength(0);
    expect(connections).toBe(1);
  });

  it("`add --from` fails the same way: nothing reaches the service, no row added or unknown", async () => {
    const from = ndjsonRows("untrusted.ndjson", 5);
    const resultsFile = join(home.path, "u.ndjson");
    const run = await runCli(["add", "--from", from, "--results", resultsFile], {
      env: env(false),
    });
    expectTlsFailure(run);
    expect(seen).toHaveLength(0);
    expect(connections).toBeLessThanOrEqual(5);
    expect(run.stderr).not.toContain("waiting");
    // A handshake that failed sent nothing: the rows tried are certainly not added.
    const last = lastOutcomes(resultsFile);
    expect(last.size).toBeGreaterThan(0);
    expect([...last.values()].map((record) => record.outcome)).toEqual(
      Array.from(last.values(), () => "failed"),
    );
  });
});
