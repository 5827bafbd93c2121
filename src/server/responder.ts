/**
 * Writing the fake's answers, and counting and logging them. An answer is JSON
 * with its type and length (none for a 204), the headers the caller hands over
 * (rate limits, CORS, deprecation, the control plane's no-store),
 * `Connection: close` while the server shuts down or when the request's body was
 * not read, and a `Date` that agrees with `X-RateLimit-Reset` under an injected
 * or moved clock. Answers to requests node:http never hands to the handler are
 * written on the socket, with the same Error body and headers.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { AccessLog } from "./access-log.js";
import type { FakeClock } from "./admin/clock.js";
import { errorReply, type Reply } from "./reply.js";

export class Responder {
  /** Shutting down: every answer asks the client to close the connection. */
  draining = false;
  private readonly counts = new Map<number, number>();
  private resets = 0;

  constructor(
    private readonly clock: FakeClock,
    /** Access log; none when undefined. */
    private readonly log: AccessLog | undefined,
  ) {}

  /** Writes `reply` with `headers`, then `more`. */
  write(
    res: ServerResponse,
    reply: Reply,
    headers: readonly string[],
    more: readonly string[] = [],
  ) {
    const all = [...headers, ...more, ...(reply.headers ?? [])];
    if (reply.body.length > 0) {
      all.push("Content-Type", "application/json");
      all.push("Content-Length", String(Buffer.byteLength(reply.body)));
    }
    if (reply.closeConnection === true || this.draining) all.push("Connection", "close");
    // With an injected or moved clock, Date must agree with X-RateLimit-Reset, as on a real service.
    const date = this.clock.dateHeader();
    if (date !== undefined) all.push("Date", date);
    res.writeHead(reply.status, all);
    res.end(reply.body);
  }

  /**
   * Writes `reply` straight to a socket as a whole HTTP/1.1 response with
   * `Connection: close`, then ends it; one the client keeps half-open is
   * destroyed a little later.
   */
  writeOnSocket(socket: Duplex, reply: Reply, headers: readonly string[], dateMs: number): void {
    const body = Buffer.from(reply.body);
    const all = [
      ...["Content-Type", "application/json", "Content-Length", String(body.length)],
      ...["Date", new Date(dateMs).toUTCString(), "Connection", "close"],
      ...headers,
      ...(reply.headers ?? []),
    ];
    let head = `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? ""}\r\n`;
    for (let i = 0; i < all.length; i += 2) head += `${all[i]}: ${all[i + 1]}\r\n`;
    socket.end(Buffer.concat([Buffer.from(`${head}\r\n`, "latin1"), body]));
    // Not left half-open for long, waiting for the client's FIN.
    setTimeout(() => socket.destroy(), 2_000).unref();
  }

  /** Counts an answer in the stats. */
  count(status: number): void {
    this.counts.set(status, (this.counts.get(status) ?? 0) + 1);
  }

  /** Counts and logs what became of a request: its status, or `reset` (its connection closed on purpose). */
  answered(req: IncomingMessage, outcome: number | "reset", startedAt: number): void {
    if (outcome === "reset") this.resets++;
    else this.count(outcome);
    if (this.log?.logsRequests === true) {
      this.log.request(req.method ?? "-", req.url ?? "", outcome, performance.now() - startedAt);
    }
  }

  /**
   * An operation that failed unexpectedly: noted in the log, and answered with a
   * 500 (the reply returned), or, when its answer had started, its connection closed.
   */
  failed(what: string, res: ServerResponse, error: unknown): Reply | undefined {
    const cause = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    this.log?.note(`internal error on ${what}: ${cause}`);
    if (!res.headersSent)
      return errorReply("internal_error", "the fake failed unexpectedly; see its log");
    res.destroy();
    return undefined;
  }

  /** Responses sent, by HTTP status and in all; connections destroyed on purpose by fault injection. */
  stats() {
    return {
      byStatus: Object.fromEntries(this.counts),
      responses: [...this.counts.values()].reduce((sum, count) => sum + count, 0),
      resets: this.resets,
    };
  }
}
