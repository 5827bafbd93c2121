#!/usr/bin/env node
/**
 * A minimal bulk client, the bulk-import phase's reference: a floor for what a node client on
 * this machine can reach against serve, doing only what any correct bulk client must do (check
 * every row before sending any, record each row as `sending` in the results file before its
 * request and `added` with its id after, fdatasync the file at the end). It skips what the CLI
 * does beyond that: rate-limit pacing, retries, resume, progress and lossless int64 handling.
 * Unlimited keys only: any answer but a 2xx, or any socket error, ends it with exit 1.
 *
 * With `--transport undici` the requests go through an undici Pool (one request in flight per
 * connection, as the CLI's) instead of hand-written HTTP on raw sockets, everything else the
 * same: the floor for a client that must use undici.
 *
 * node bench/lib/reference-bulk-client.mjs --base-url http://127.0.0.1:PORT/v1 --key KEY
 *   --from rows.ndjson --results out.ndjson [--concurrency 16] [--transport raw|undici]
 */
import { createHash } from "node:crypto";
import { closeSync, fdatasyncSync, openSync, readFileSync, writeSync } from "node:fs";
import { connect } from "node:net";
import { parseArgs } from "node:util";
import { Pool } from "undici";

const text = { type: "string" };
const { values: opts } = parseArgs({
  options: {
    "base-url": text,
    key: text,
    from: text,
    results: text,
    concurrency: text,
    transport: text,
  },
});
const fail = (code, message) => {
  process.stderr.write(`reference-bulk-client: ${message}\n`);
  process.exit(code);
};

if (!["raw", "undici", undefined].includes(opts.transport)) {
  fail(2, `--transport is raw or undici, not ${JSON.stringify(opts.transport)}`);
}

// First pass: every line a pet, or nothing is sent.
const rows = [];
const lines = readFileSync(opts.from, "utf8").split("\n");
for (const [i, line] of lines.entries()) {
  if (line.trim() === "") continue;
  let pet;
  try {
    pet = JSON.parse(line);
  } catch {
    fail(2, `line ${i + 1}: not JSON`);
  }
  const isObject = typeof pet === "object" && pet !== null && !Array.isArray(pet);
  if (!isObject || typeof pet.name !== "string" || !Number.isInteger(pet.categoryId)) {
    fail(2, `line ${i + 1}: not a pet (an object with a string name and an integer categoryId)`);
  }
  rows.push({ line: i + 1, pet });
}

const url = new URL(opts["base-url"]);
const head =
  `POST ${url.pathname.replace(/\/+$/, "")}/pets HTTP/1.1\r\nHost: ${url.host}\r\n` +
  `authorization: Bearer ${opts.key}\r\ncontent-type: application/json\r\ncontent-length: `;
const results = openSync(opts.results, "w");
let pending = "";
const writePending = () => {
  if (pending) writeSync(results, pending);
  pending = "";
};

// Requests made ready in one turn go out together, after their `sending` lines reach the file.
let ready = [];
const flush = () => {
  writePending();
  for (const item of ready) {
    if (Array.isArray(item)) item[0].write(item[1]);
    else item.write();
  }
  ready = [];
};
let next = 0;
let answered = 0;
function sendNext(socket, state) {
  if (next >= rows.length) return;
  const row = (state.row = next++) + 1;
  const { name, categoryId, status } = rows[row - 1].pet;
  const body = JSON.stringify({ name, categoryId, status });
  const digest = createHash("sha256").update(body).digest("hex").slice(0, 16);
  pending += `{"row":${row},"line":${rows[row - 1].line},"outcome":"sending","digest":"${digest}"}\n`;
  if (ready.length === 0) setImmediate(flush);
  ready.push([socket, `${head}${Buffer.byteLength(body)}\r\n\r\n${body}`]);
}

const sockets = [];
const finish = () => {
  writePending();
  fdatasyncSync(results);
  closeSync(results);
  for (const socket of sockets) socket.destroy();
  process.exit(0);
};
if (rows.length === 0) finish();
const concurrency = Math.min(Number(opts.concurrency ?? 16), rows.length);
if (opts.transport === "undici") sendThroughUndici();
else sendOnSockets();

/** The same requests through an undici Pool: one in flight per connection. */
function sendThroughUndici() {
  const pool = new Pool(url.origin, { connections: concurrency, pipelining: 1 });
  const path = `${url.pathname.replace(/\/+$/, "")}/pets`;
  const headers = ["authorization", `Bearer ${opts.key}`, "content-type", "application/json"];
  const post = (row) => {
    const { name, categoryId, status } = rows[row - 1].pet;
    const body = JSON.stringify({ name, categoryId, status });
    const digest = createHash("sha256").update(body).digest("hex").slice(0, 16);
    pending += `{"row":${row},"line":${rows[row - 1].line},"outcome":"sending","digest":"${digest}"}\n`;
    if (ready.length === 0) setImmediate(flush);
    const chunks = [];
    let statusCode = 0;
    ready.push({
      write() {
        pool.dispatch(
          { path, method: "POST", headers, body: Buffer.from(body) },
          {
            onRequestStart() {},
            onResponseStart(_controller, code) {
              statusCode = code;
            },
            onResponseData(_controller, chunk) {
              chunks.push(chunk);
            },
            onResponseEnd() {
              const text = Buffer.concat(chunks).toString();
              const id = /"id":(\d+)/.exec(text);
              if (statusCode < 200 || statusCode > 299 || !id) {
                fail(1, `row ${row}: ${statusCode}: ${text.slice(0, 200)}`);
              }
              pending += `{"row":${row},"line":${rows[row - 1].line},"outcome":"added","id":${id[1]}}\n`;
              if (++answered === rows.length) finish();
              else if (next < rows.length) post(++next);
            },
            onResponseError(_controller, error) {
              fail(1, `row ${row}: ${error.message}`);
            },
          },
        );
      },
    });
  };
  while (next < concurrency) post(++next);
}

function sendOnSockets() {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  for (let i = 0; i < concurrency; i++) {
    const socket = connect({ host, port: Number(url.port) || 80, noDelay: true });
    const state = { row: -1, buffer: "" };
    sockets.push(socket);
    socket.setEncoding("latin1"); // one char a byte, so Content-Length counts chars
    socket.on("error", (error) => fail(1, `row ${state.row + 1}: ${error.message}`));
    socket.on("close", () => fail(1, `row ${state.row + 1}: the server closed the connection`));
    socket.on("data", (chunk) => {
      state.buffer += chunk;
      const end = state.buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(state.buffer.slice(0, end));
      if (!length) fail(1, `row ${state.row + 1}: an answer without Content-Length`);
      const bodyEnd = end + 4 + Number(length[1]);
      if (state.buffer.length < bodyEnd) return;
      const statusLine = state.buffer.slice(0, state.buffer.indexOf("\r\n"));
      const body = state.buffer.slice(end + 4, bodyEnd);
      state.buffer = state.buffer.slice(bodyEnd);
      const id = /"id":(\d+)/.exec(body);
      if (!/^HTTP\/1\.[01] 2\d\d\b/.test(statusLine) || !id) {
        fail(1, `row ${state.row + 1}: ${statusLine}: ${body.slice(0, 200)}`);
      }
      const row = state.row + 1;
      pending += `{"row":${row},"line":${rows[row - 1].line},"outcome":"added","id":${id[1]}}\n`;
      if (++answered === rows.length) finish();
      else sendNext(socket, state);
    });
    sendNext(socket, state);
  }
}
