/**
 * The transport of a bulk add to an http:// service: HTTP/1.1 written and read
 * directly on kept-alive sockets. With node:http's client a whole bulk add cost
 * about 295 microseconds of CPU per row, with this one 160 (and added 5,000
 * instead of 3,100 rows/s against `petstore serve` on 2 cores, where the client's
 * CPU is taken from the service). https:// goes through node:https instead
 * (pooled-transport.ts): TLS is not worth re-doing.
 *
 * The hazard of reuse is a connection the service closes just as a request is
 * written to it: the request may or may not have been read. So a failure on a
 * reused connection counts as "sent" (the row's outcome is unknown; it is never
 * re-sent blindly), and connections are not kept where the service would close
 * them: one idle for a second is closed, well before any usual keep-alive timeout.
 */
import { connect, type Socket } from "node:net";
import type { Transport, TransportRequest, TransportResponse } from "../client/transport.js";
import { NetworkError, TimeoutError, UsageError, type RequestSummary } from "../errors.js";
import { AnswerFormatError, AnswerParser, type ParsedAnswer } from "./http1.js";
import type { PooledTransport } from "./pooled-transport.js";
import { NOT_CONNECTED_CODES } from "../client/node-transport.js";

const MAX_ANSWER_BYTES = 1024 * 1024;
export const IDLE_SOCKET_MS = 1_000;

interface Exchange {
  parser: AnswerParser;
  resolve(answer: ParsedAnswer): void;
  fail(error: unknown): void;
}

class Connection {
  readonly socket: Socket;
  connected = false;
  idleSince = 0;
  closed = false;
  exchange: Exchange | undefined;

  constructor(host: string, port: number, onClosed: (connection: Connection) => void) {
    this.socket = connect({ host, port, noDelay: true });
    this.socket.once("connect", () => (this.connected = true));
    this.socket.on("data", (chunk: Buffer) => {
      const exchange = this.exchange;
      if (exchange === undefined) {
        // Bytes nobody asked for: this connection cannot be trusted with another request.
        this.socket.destroy();
        return;
      }
      let answer: ParsedAnswer | undefined;
      try {
        answer = exchange.parser.push(chunk);
      } catch (error) {
        this.exchange = undefined;
        this.socket.destroy();
        exchange.fail(error);
        return;
      }
      if (answer !== undefined) {
        this.exchange = undefined;
        exchange.resolve(answer);
      }
    });
    const ended = (error?: Error) => {
      if (this.closed) return;
      this.closed = true;
      this.socket.destroy();
      const exchange = this.exchange;
      this.exchange = undefined;
      if (exchange !== undefined) {
        const answer = error === undefined ? exchange.parser.end() : undefined;
        if (answer !== undefined) exchange.resolve(answer);
        else exchange.fail(error ?? new Error("ECONNRESET"));
      }
      onClosed(this);
    };
    this.socket.on("error", (error) => ended(error));
    this.socket.on("end", () => ended());
    this.socket.on("close", () => ended());
  }
}

/** Header lines already checked, by name: the same few come with every row. */
const checkedLines = new Map<string, { value: string; line: string }>();

function headerLine(name: string, value: string): string {
  const known = checkedLines.get(name);
  if (known !== undefined && known.value === value) return known.line;
  if (/[\r\n\0]/.test(value) || /[^!#$%&'*+\-.^_`|~0-9A-Za-z]/.test(name)) {
    throw new UsageError(`the ${name} header holds characters that cannot be sent`);
  }
  const line = `${name}: ${value}\r\n`;
  if (checkedLines.size >= 64) checkedLines.clear();
  checkedLines.set(name, { value, line });
  return line;
}

function requestText(request: TransportRequest, url: URL): string {
  let text = `${request.method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n`;
  const headers = request.headers;
  for (const name in headers) text += headerLine(name, headers[name]!);
  return text + "\r\n" + (request.body ?? "");
}

export function createWireTransport(options: {
  maxSockets: number;
  now?: () => number;
  /** Called before each group of requests is written to the sockets (the results file's flush). */
  beforeWrite?: () => void;
  /** Called after each group of requests was written (work that can wait for the answers). */
  afterWrite?: () => void;
}): PooledTransport {
  const { beforeWrite, afterWrite } = options;
  const now = options.now ?? Date.now;
  const idle: Connection[] = [];
  const all = new Set<Connection>();
  const queue: Array<(connection: Connection) => void> = [];
  let target: { text: string; url: URL; host: string; port: number } | undefined;

  const closed = (connection: Connection) => {
    all.delete(connection);
    const at = idle.indexOf(connection);
    if (at !== -1) idle.splice(at, 1);
    // A slot came free: someone waiting for one gets a new connection.
    const waiting = queue.shift();
    if (waiting !== undefined) waiting(open());
  };

  function open(): Connection {
    const connection = new Connection(target!.host, target!.port, closed);
    all.add(connection);
    return connection;
  }

  /** Hands `take` a connection: at once when one is idle or may be opened, else when one comes free. */
  function acquire(take: (connection: Connection) => void): void {
    const time = now();
    while (idle.length > 0) {
      const connection = idle.pop()!;
      if (!connection.closed && time - connection.idleSince <= IDLE_SOCKET_MS) {
        take(connection);
        return;
      }
      connection.closed = true;
      all.delete(connection);
      connection.socket.destroy();
    }
    if (all.size < options.maxSockets) take(open());
    else queue.push(take);
  }

  function release(connection: Connection, reusable: boolean): void {
    if (!reusable || connection.closed) {
      connection.socket.destroy();
      return;
    }
    const waiting = queue.shift();
    if (waiting !== undefined) {
      waiting(connection);
      return;
    }
    connection.idleSince = now();
    idle.push(connection);
  }

  const transport: Transport = (request) => {
    let text: string;
    try {
      if (target?.text !== request.url) {
        const url = new URL(request.url);
        if (url.protocol !== "http:") throw new Error("the wire transport speaks http:// only");
        target = {
          text: request.url,
          url,
          host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
          port: Number(url.port || 80),
        };
      }
      text = requestText(request, target.url);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const { url } = target;
    const summary: RequestSummary = { method: request.method, url: request.url };
    return new Promise<TransportResponse>((resolve, reject) =>
      acquire((connection) => exchange(connection, resolve, reject)),
    );

    function exchange(
      connection: Connection,
      resolve: (answer: TransportResponse) => void,
      reject: (error: Error) => void,
    ): void {
      // A reused connection may have taken bytes of this request before failing.
      const reused = connection.connected;
      let settled = false;
      const deadline = setTimeout(() => {
        if (settled) return;
        const connected = connection.connected;
        finish(
          new TimeoutError(
            `${connected ? "no complete answer" : "could not connect"} from ${url.host} within ${request.timeoutMs / 1000} s`,
            summary,
            connected,
            "a slow service may need a longer --timeout",
          ),
        );
      }, request.timeoutMs);
      const finish = (outcome: ParsedAnswer | Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        if (outcome instanceof Error) {
          connection.exchange = undefined;
          release(connection, false);
          reject(outcome);
          return;
        }
        release(connection, outcome.keepAlive);
        resolve({
          status: outcome.status,
          headers: outcome.headers,
          body: outcome.body.toString("utf8"),
        });
      };
      connection.exchange = {
        parser: new AnswerParser(MAX_ANSWER_BYTES),
        resolve: finish,
        fail: (error) => {
          const code = (error as NodeJS.ErrnoException)?.code ?? "";
          const sent = reused || connection.connected;
          if (error instanceof AnswerFormatError) {
            finish(new NetworkError(`${url.host} sent ${error.message}`, summary, true));
          } else if (NOT_CONNECTED_CODES[code] !== undefined && !sent) {
            finish(
              new NetworkError(
                `could not connect to ${url.host}: ${NOT_CONNECTED_CODES[code]}`,
                summary,
                false,
                "check the base URL (--base-url, PETSTORE_BASE_URL or the profile) and that the service is up",
              ),
            );
          } else if (code === "" || code === "ECONNRESET" || code === "EPIPE") {
            finish(
              new NetworkError(
                `${url.host} closed the connection without an answer`,
                summary,
                sent,
              ),
            );
          } else {
            finish(new NetworkError(`request to ${url.host} failed: ${code}`, summary, sent));
          }
        },
      };
      send(connection, text);
    }
  };

  // Requests made ready in the same turn of the event loop go out together: a
  // service that commits its writes in groups (as `petstore serve` does) then
  // gets them together, and spends much less per request (measured: about 1.5x).
  let outgoing: Array<[Connection, string]> = [];
  const flush = () => {
    const batch = outgoing;
    outgoing = [];
    beforeWrite?.();
    for (const [connection, text] of batch) if (!connection.closed) connection.socket.write(text);
    afterWrite?.();
  };
  function send(connection: Connection, text: string): void {
    if (outgoing.length === 0) setImmediate(flush);
    outgoing.push([connection, text]);
  }

  return {
    transport,
    close() {
      for (const connection of all) connection.socket.destroy();
      all.clear();
      idle.length = 0;
    },
  };
}
