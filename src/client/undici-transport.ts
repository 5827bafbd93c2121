/**
 * A Transport over an undici dispatcher: the bulk add's Pool (or ProxyAgent),
 * and the one-shot commands' ProxyAgent behind a proxy. Keep-alive, the bound
 * on connections and the connection options (TLS through tls.connect, so
 * NODE_EXTRA_CA_CERTS applies) are undici's; the dispatchers are made in
 * undici-dispatchers.ts.
 *
 * What is ours: the timeout of one attempt (from the request's start to the last
 * byte of the answer, as node-transport.ts counts it), the size bound of an
 * answer, and whether a failed request may have reached the service. undici
 * calls onRequestStart once the connection is up (through the tunnel and TLS,
 * behind a proxy), just before it writes the request: a failure before that
 * sent nothing; after it, the request may have been read, even on a kept-alive
 * connection the service was closing, so the row's outcome is unknown and it
 * is never sent again blindly. A failure of the proxy itself is a ProxyError
 * (proxy-errors.ts).
 */
import type { Dispatcher } from "undici";
import { UsageError, type RequestSummary } from "../errors.js";
import { networkError, timeoutError, tooLargeError } from "./network-errors.js";
import type { ProxyServer } from "./proxy-env.js";
import { proxyError } from "./proxy-errors.js";
import { isProxyFailure } from "./proxy-failure.js";
import type { Transport, TransportRequest, TransportResponse } from "./transport.js";

export interface DispatchTarget {
  /** Every request goes to this origin (the base URL's). */
  origin: string;
  /** An answer larger than this is refused. */
  maxBytes: number;
  /** The proxy `dispatcher` goes through, if any. */
  proxy?: ProxyServer;
}

export function dispatcherTransport(dispatcher: Dispatcher, target: DispatchTarget): Transport {
  const { origin } = new URL(target.origin);
  /** Every request of a run goes to the same URL: parse it once. */
  let last: { text: string; url: URL; path: string } | undefined;

  return (request) => {
    if (last?.text !== request.url) {
      const url = new URL(request.url);
      if (url.origin !== origin) {
        return Promise.reject(new Error(`this transport sends to ${target.origin} only`));
      }
      last = { text: request.url, url, path: url.pathname + url.search };
    }
    const { url, path } = last;
    // undici takes headers as a flat list and a body as bytes with the least work.
    const headers: string[] = [];
    for (const name in request.headers) headers.push(name, request.headers[name]!);
    const body = request.body === undefined ? null : Buffer.from(request.body);
    return new Promise<TransportResponse>((resolve, reject) => {
      const exchange = new Exchange(request, url, target, resolve, reject);
      dispatcher.dispatch({ origin, path, method: request.method, headers, body }, exchange);
    });
  };
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
    private readonly target: DispatchTarget,
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
    if (this.size > this.target.maxBytes) {
      this.fail(tooLargeError(this.summary, this.url, this.target.maxBytes));
    } else {
      this.chunks.push(chunk);
    }
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
    this.fail(this.failure(error));
  }

  private failure(error: Error): Error {
    const code = (error as NodeJS.ErrnoException).code;
    const { proxy } = this.target;
    if (proxy !== undefined) {
      if (isProxyFailure(error)) return proxyError(error, proxy, this.url);
      // http:// through the proxy: the connection is the proxy's, and undici reports its 407 as an error.
      const plain407 = code === "UND_ERR_INVALID_ARG" && PLAIN_PROXY_407.test(error.message);
      if (!proxy.tunnel && (!this.started || plain407)) {
        const failure = { message: error.message, causeCode: code };
        return proxyError(plain407 ? { ...failure, status: 407 } : failure, proxy, this.url);
      }
    }
    if (code === "UND_ERR_CONNECT_TIMEOUT") {
      return timeoutError(this.summary, this.url, this.request.timeoutMs, false);
    }
    if (code === "UND_ERR_INVALID_ARG") {
      // A header undici will not write (a key with a line break): nothing was sent.
      return new UsageError(`the request cannot be sent: ${error.message}`);
    }
    return networkError(error, this.summary, this.url, this.started);
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
