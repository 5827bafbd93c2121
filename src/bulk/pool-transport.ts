/**
 * The transport of a bulk add: one undici Pool for http:// and https:// alike,
 * or undici's ProxyAgent behind a proxy. Keep-alive, the bound on connections
 * (one per request in flight) and the connection options (TLS through
 * tls.connect, so NODE_EXTRA_CA_CERTS applies) are undici's. The one-shot
 * commands stay on node:http (client/transport.ts): undici's start-up cost
 * matters there, not in a run of thousands of requests.
 *
 * What is ours: the timeout of one attempt (from the request's start to the last
 * byte of the answer, as the one-shot client counts it), the size bound of an
 * answer, and whether a failed request may have reached the service. undici
 * calls onRequestStart once the connection is up, just before it writes the
 * request: a failure before that sent nothing; after it, the request may have
 * been read, even on a kept-alive connection the service was closing, so the
 * row's outcome is unknown and it is never sent again blindly. Behind a proxy,
 * onRequestStart comes once the tunnel and TLS through it are up; a failure of
 * the proxy itself is a ProxyError (client/network-errors.ts), never retried.
 *
 * Behind a proxy, the proxy chosen by client/proxy-env.ts is given to ProxyAgent
 * (never EnvHttpProxyAgent, which would read the variables a second way): CONNECT
 * tunnels to an https:// service, plain requests to the proxy for an http:// one
 * (`proxyTunnel: false`, as curl does). Its URL goes without credentials, and
 * the credentials as the Proxy-Authorization value, so no URL inside undici
 * holds the password.
 */
import { Pool, ProxyAgent, type Dispatcher } from "undici";
import { UsageError, type RequestSummary } from "../errors.js";
import {
  networkError,
  proxyError,
  timeoutError,
  tooLargeError,
  type ProxyFailureFacts,
} from "../client/network-errors.js";
import type { ProxyServer } from "../client/proxy-env.js";
import type { Transport, TransportRequest, TransportResponse } from "../client/transport.js";

/** A pet is a few hundred bytes; an answer this large is not our service. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface PoolTransportOptions {
  /** Every request goes to this origin (the base URL's). */
  origin: string;
  /** At most this many connections, each carrying one request at a time. */
  connections: number;
  /** The timeout of one attempt; also bounds the connection's set-up. */
  timeoutMs: number;
  /** The proxy to go through (client/proxy-env.ts decides); direct when absent. */
  proxy?: ProxyServer;
}

/** The code of a TunnelFailure: a code of undici's own would not do (see tunnelOpener). */
const TUNNEL_FAILURE = "PETSTORE_TUNNEL_FAILURE";

/**
 * The proxy failed before a tunnel was up (refused, closed, or CONNECT answered
 * but 200): its answer's status, or the code of the connection's error
 * (ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET...).
 */
function tunnelFailure(message: string, status?: number, causeCode?: string): Error {
  return Object.assign(new Error(message), { code: TUNNEL_FAILURE, status, causeCode });
}

/**
 * The proxy's client as ProxyAgent uses it (connect, close, destroy), with every
 * failure of a CONNECT made a tunnelFailure. On a connection error coded
 * UND_ERR_SOCKET (the proxy hung up) undici would keep the request queued and
 * connect again, and again; with a code of ours it fails the request.
 */
function tunnelOpener(pool: Pool): Dispatcher {
  const opener = {
    connect: async (options: Dispatcher.ConnectOptions) => {
      let answer: Dispatcher.ConnectData;
      try {
        answer = await pool.connect(options);
      } catch (error) {
        const { message, code } = error as NodeJS.ErrnoException;
        throw tunnelFailure(message, undefined, code);
      }
      if (answer.statusCode !== 200) {
        answer.socket.on("error", () => {}).destroy();
        throw tunnelFailure(`the proxy answered ${answer.statusCode}`, answer.statusCode);
      }
      return answer;
    },
    close: () => pool.close(),
    destroy: () => pool.destroy(),
  };
  return opener as unknown as Dispatcher;
}

/** The transport, and what closes every connection. */
export function createPoolTransport(options: PoolTransportOptions) {
  const { origin, proxy, timeoutMs } = options;
  const poolOptions = {
    connections: options.connections,
    // A POST is not idempotent: never behind another request on the same connection.
    pipelining: 1,
    // The attempt's own timer covers the wait for headers and body.
    headersTimeout: 0,
    bodyTimeout: 0,
  };
  const timeout = { timeout: timeoutMs };
  const pool: Dispatcher =
    proxy === undefined
      ? new Pool(origin, { ...poolOptions, connect: timeout })
      : new ProxyAgent({
          uri: proxy.url,
          ...(proxy.authorization === undefined ? {} : { token: proxy.authorization }),
          proxyTunnel: false,
          proxyTls: timeout,
          requestTls: timeout,
          factory: (origin, opts) => new Pool(origin, { ...opts, ...poolOptions }),
          clientFactory: (origin, opts) => tunnelOpener(new Pool(origin, opts)),
        });
  // Errors name the host and scheme: the origin's, as every request goes there.
  const url = new URL(origin);
  const transport: Transport = (request) => {
    // The API key goes to the origin of the base URL and nowhere else: nothing is sent.
    if (!request.url.startsWith(origin + "/")) {
      throw new UsageError(`the request cannot be sent: ${request.url} is not on ${origin}`);
    }
    // undici takes headers as a flat list and a body as bytes with the least work.
    const headers: string[] = [];
    for (const name in request.headers) headers.push(name, request.headers[name]!);
    const body = request.body === undefined ? null : Buffer.from(request.body);
    return new Promise<TransportResponse>((resolve, reject) => {
      const exchange = new Exchange(request, url, proxy, resolve, reject);
      const path = request.url.slice(origin.length);
      pool.dispatch({ origin, path, method: request.method, headers, body }, exchange);
    });
  };

  return { transport, close: () => void pool.destroy().catch(() => {}) };
}

/** undici's words when the proxy of an http:// service answers 407. */
const PLAIN_PROXY_407 = /\(407\)/;

/** One request's handler: collects the answer, or says what failed and whether it was sent. */
class Exchange implements Dispatcher.DispatchHandler {
  private readonly summary: RequestSummary;
  private readonly deadline: ReturnType<typeof setTimeout>;
  private controller: Dispatcher.DispatchController | undefined;
  /** The connection is up and the request is being written: it may reach the service. */
  private started = false;
  private settled = false;
  private status = 0;
  private headers: Record<string, string> = {};
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly request: TransportRequest,
    private readonly url: URL,
    private readonly proxy: ProxyServer | undefined,
    private readonly resolve: (answer: TransportResponse) => void,
    private readonly reject: (error: Error) => void,
  ) {
    this.summary = { method: request.method, url: request.url };
    this.deadline = setTimeout(() => {
      this.fail(timeoutError(this.summary, url, request.timeoutMs, this.started));
    }, request.timeoutMs);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Given up while waiting for a connection: it must not leave now.
    if (this.settled) controller.abort(new Error("abandoned"));
    else this.started = true;
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return; // 1xx: the answer is still to come
    this.status = statusCode;
    for (const name in headers) {
      const value = headers[name];
      if (Array.isArray(value)) headers[name] = value.join(", ");
    }
    this.headers = headers as Record<string, string>;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size <= MAX_ANSWER_BYTES) this.chunks.push(chunk);
    else this.fail(tooLargeError(this.summary, this.url, MAX_ANSWER_BYTES));
  }

  onResponseEnd(): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.deadline);
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.resolve({ status: this.status, headers: this.headers, body: body.toString("utf8") });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.settled) return;
    const code = (error as NodeJS.ErrnoException).code;
    const { proxy } = this;
    // http:// through the proxy: the connection is the proxy's, and undici reports its 407 as an error.
    const plain407 = code === "UND_ERR_INVALID_ARG" && PLAIN_PROXY_407.test(error.message);
    if (code === TUNNEL_FAILURE) {
      this.fail(proxyError(error as ProxyFailureFacts, proxy!, this.url));
    } else if (proxy !== undefined && !proxy.tunnel && (!this.started || plain407)) {
      const facts = { message: error.message, causeCode: code };
      this.fail(proxyError(plain407 ? { ...facts, status: 407 } : facts, proxy, this.url));
    } else if (code === "UND_ERR_CONNECT_TIMEOUT") {
      this.fail(timeoutError(this.summary, this.url, this.request.timeoutMs, false));
    } else if (code === "UND_ERR_INVALID_ARG") {
      // A header undici will not write (a key with a line break): nothing was sent.
      this.fail(new UsageError(`the request cannot be sent: ${error.message}`));
    } else {
      this.fail(networkError(error, this.summary, this.url, this.started));
    }
  }

  private fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.deadline);
    // Before onRequestStart there is nothing to abort yet; onRequestStart aborts it.
    if (this.controller !== undefined && !this.controller.aborted) this.controller.abort(error);
    this.reject(error);
  }
}
