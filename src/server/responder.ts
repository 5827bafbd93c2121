/**
 * Writing the fake's answers and keeping count of them. Every /v1 answer carries
 * its content type and length, the headers the app hands over (rate limits,
 * deprecation), the CORS headers of its origin, `Connection: close` while the
 * server shuts down, and a `Date` that agrees with `X-RateLimit-Reset` under an
 * injected or moved clock. Answers to requests node:http never hands to the
 * handler are written on the socket, with the same Error body and headers.
 * Every answer is counted in the server's stats and logged in the access log;
 * /v1 answers and connections reset on purpose also finish their entry in the
 * request journal (admin/request-journal.ts).
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { AccessLog } from "./access-log.js";
import type { FakeClock } from "./admin/clock.js";
import type { RequestJournal } from "./admin/request-journal.js";
import type { Cors } from "./cors.js";
import { errorReply, type Reply } from "./reply.js";

export interface ServerStats {
  /** Responses sent, by HTTP status. */
  byStatus: Record<number, number>;
  /** Responses sent in all. */
  responses: number;
  /** Connections destroyed on purpose by fault injection (no response). */
  resets: number;
}

/** How long a connection closed by a socket answer may stay half-open, waiting for the client's FIN. */
const LINGER_MS = 2_000;

export class Responder {
  /** Shutting down: every answer asks the client to close the connection. */
  draining = false;
  /** Whether answers finish an entry in the request journal (it may be off). */
  readonly journaling: boolean;
  private readonly logRequests: boolean;
  private readonly timed: boolean;
  private readonly counts = new Map<number, number>();
  private responses = 0;
  private resets = 0;

  constructor(
    private readonly cors: Cors,
    private readonly clock: FakeClock,
    readonly journal: RequestJournal,
    /** Access log; none when undefined. */
    private readonly log: AccessLog | undefined,
  ) {
    this.logRequests = log?.logsRequests === true;
    this.journaling = journal.capacity > 0;
    this.timed = this.logRequests || this.journaling;
  }

  /** When a request's handling starts, for its duration; 0 when nothing records it. */
  startedAt(): number {
    return this.timed ? performance.now() : 0;
  }

  /** Counts an answer in the stats (the control plane's too). */
  count(status: number): void {
    this.counts.set(status, (this.counts.get(status) ?? 0) + 1);
    this.responses++;
  }

  /** Counts and logs an answer written elsewhere (the home page, a socket answer). */
  answered(req: IncomingMessage, status: number, startedAt: number): void {
    this.count(status);
    if (this.logRequests) this.logRequest(req, status, startedAt);
  }

  /** Counts an answer to a request that could not be read; logged as a note. */
  answeredMalformed(status: number, cause: string): void {
    this.count(status);
    if (this.logRequests) this.log!.note(`${status} to a malformed request: ${cause}`);
  }

  /** Writes a /v1 answer with the headers every one carries, and records it. */
  send(
    req: IncomingMessage,
    res: ServerResponse,
    reply: Reply,
    headers: readonly string[],
    startedAt: number,
  ): void {
    const all = [
      "Content-Type",
      "application/json",
      "Content-Length",
      String(typeof reply.body === "string" ? Buffer.byteLength(reply.body) : reply.body.length),
      ...headers,
      ...this.cors.headers(req.headers.origin),
    ];
    if (reply.headers !== undefined) all.push(...reply.headers);
    if (reply.closeConnection === true || this.draining) all.push("Connection", "close");
    // With an injected or moved clock, Date must agree with X-RateLimit-Reset, as on a real service.
    const date = this.clock.dateHeader();
    if (date !== undefined) all.push("Date", date);
    res.writeHead(reply.status, all);
    res.end(reply.body);
    this.answered(req, reply.status, startedAt);
    if (this.journaling) this.journal.finish(req, reply.status, performance.now() - startedAt);
  }

  /** A 204 without a body (a preflight's answer), with `headers`; not journaled. */
  sendNoContent(
    req: IncomingMessage,
    res: ServerResponse,
    headers: string[],
    startedAt: number,
  ): void {
    if (this.draining) headers.push("Connection", "close");
    res.writeHead(204, headers);
    res.end();
    this.answered(req, 204, startedAt);
  }

  /**
   * Writes `reply` straight to a socket as a whole HTTP/1.1 response with
   * `Connection: close`, then ends it; one the client keeps half-open is
   * destroyed a little later. `origin`: the request's, when it was read.
   */
  sendOnSocket(
    socket: Duplex,
    reply: Reply,
    headers: readonly string[],
    origin: string | undefined,
    dateMs: number,
  ): void {
    const body = typeof reply.body === "string" ? Buffer.from(reply.body) : reply.body;
    const all = [
      "Content-Type",
      "application/json",
      "Content-Length",
      String(body.length),
      "Date",
      new Date(dateMs).toUTCString(),
      "Connection",
      "close",
      ...headers,
      ...this.cors.headers(origin),
      ...(reply.headers ?? []),
    ];
    let head = `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? ""}\r\n`;
    for (let i = 0; i < all.length; i += 2) head += `${all[i]}: ${all[i + 1]}\r\n`;
    socket.end(Buffer.concat([Buffer.from(`${head}\r\n`, "latin1"), body]));
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  }

  /** Closes the connection on purpose, without an answer (fault injection, shutdown). */
  reset(req: IncomingMessage, startedAt: number): void {
    req.socket.destroy();
    this.resets++;
    if (this.logRequests) this.logRequest(req, "reset", startedAt);
    if (this.journaling) this.journal.finish(req, null, performance.now() - startedAt);
  }

  /**
   * An operation that failed unexpectedly: noted in the log, and answered with a
   * 500 (the reply returned), or, when its answer had started, its connection closed.
   */
  failed(req: IncomingMessage, res: ServerResponse, error: unknown): Reply | undefined {
    this.log?.note(`internal error on ${req.method} request: ${describeError(error)}`);
    if (res.headersSent) {
      res.destroy();
      return undefined;
    }
    return errorReply("internal_error", "the fake failed unexpectedly; see its log");
  }

  stats(): ServerStats {
    return {
      byStatus: Object.fromEntries(this.counts),
      responses: this.responses,
      resets: this.resets,
    };
  }

  /** `outcome`: the status sent, or `reset` for a connection closed on purpose. */
  private logRequest(req: IncomingMessage, outcome: number | "reset", startedAt: number): void {
    this.log!.request(req.method ?? "-", req.url ?? "", outcome, performance.now() - startedAt);
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
