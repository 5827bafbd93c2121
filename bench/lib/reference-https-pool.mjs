/**
 * The bulk add's transport before undici, kept for the bench only (it never ships): a
 * node:http(s) keep-alive Agent, idle sockets dropped after a second and all of them after a
 * pause, one request per socket at a time; a failure on a socket that was already up counts as
 * "sent". It is the code of src/bulk/pooled-transport.ts and the `exchange` of
 * src/client/node-transport.ts as they were, in JavaScript, with the same export as
 * src/bulk/pool-transport.ts so that bench/lib/reference-cli.mjs can build the CLI with this file
 * in its place: the same engine, results file and pacing, only the transport differs.
 */
import {
  cutShortError,
  networkError,
  timeoutError,
  tooLargeError,
} from "../../src/client/network-errors.js";

/** A pet is a few hundred bytes; an answer this large is not our service. */
const MAX_ANSWER_BYTES = 1024 * 1024;
/** Idle connections are closed well before a typical keep-alive timeout (5 s in node:http). */
const IDLE_SOCKET_MS = 1_000;

/** The same options as src/bulk/pool-transport.ts; `timeoutMs` is each request's own here. */
export function createPoolTransport(options) {
  const now = Date.now;
  let agent;
  let active = 0;
  let idleSince = now();
  let http;
  /** Every request of a run goes to the same URL: parse it once. */
  let target;

  async function agentFor(tls) {
    if (agent !== undefined && active === 0 && now() - idleSince > IDLE_SOCKET_MS) {
      agent.destroy();
      agent = undefined;
    }
    http ??= tls ? await import("node:https") : await import("node:http");
    if (agent === undefined) {
      const { Agent } = http;
      agent = new Agent({
        keepAlive: true,
        maxSockets: options.connections,
        timeout: IDLE_SOCKET_MS,
        scheduling: "fifo",
      });
    }
    return agent;
  }

  function targetOf(text) {
    if (target?.url !== text) {
      const parsed = new URL(text);
      target = {
        url: text,
        parsed,
        options: {
          protocol: parsed.protocol,
          hostname: parsed.hostname.replace(/^\[(.*)\]$/, "$1"),
          port: parsed.port,
          path: parsed.pathname + parsed.search,
        },
      };
    }
    return target;
  }

  const transport = async (request) => {
    const { parsed: url, options: where } = targetOf(request.url);
    const tls = url.protocol === "https:";
    const pool = await agentFor(tls);
    const open = http.request;
    active++;
    try {
      const req = open({ ...where, method: request.method, headers: request.headers, agent: pool });
      return await exchange(req, request, url, MAX_ANSWER_BYTES);
    } finally {
      if (--active === 0) idleSince = now();
    }
  };

  return {
    transport,
    close() {
      agent?.destroy();
      agent = undefined;
    },
  };
}

/**
 * Sends `request` on `req` (made by node:http or node:https, on a new or a pooled connection)
 * and collects the answer: the timeout, the typed errors, and whether the request may have
 * reached the service when it failed.
 */
function exchange(req, request, url, maxBytes) {
  const tls = url.protocol === "https:";
  return new Promise((resolve, reject) => {
    const summary = { method: request.method, url: request.url };
    // Until the connection is up (TLS included) no byte of the request can have arrived;
    // a pooled connection that is already up may have taken some.
    let connected = false;
    let settled = false;
    const fail = (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      req.destroy();
      reject(error);
    };
    const deadline = setTimeout(
      () => fail(timeoutError(summary, url, request.timeoutMs, connected)),
      request.timeoutMs,
    );
    req.on("socket", (socket) => {
      if (!socket.connecting) connected = true;
      else socket.once(tls ? "secureConnect" : "connect", () => (connected = true));
    });
    req.on("error", (error) => fail(networkError(error, summary, url, connected)));
    req.on("response", (res) => {
      const chunks = [];
      let size = 0;
      res.on("data", (chunk) => {
        size += chunk.length;
        if (size > maxBytes) fail(tooLargeError(summary, url, maxBytes));
        else chunks.push(chunk);
      });
      res.on("error", (error) => fail(networkError(error, summary, url, true)));
      res.on("close", () => {
        if (!res.complete) fail(cutShortError(summary, url));
      });
      res.on("end", () => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve({
          status: res.statusCode ?? 0,
          headers: flattenHeaders(res.headers),
          body: Buffer.concat(chunks).toString("utf8"),
        });
      });
    });
    req.end(request.body);
  });
}

function flattenHeaders(headers) {
  const flat = Object.create(null);
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}
