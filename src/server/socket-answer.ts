/**
 * Answers written straight to a socket, for the requests node:http never hands
 * to the request handler: malformed or too slow ones (`clientError`) and CONNECT
 * (`connect`). They carry the same Error body and headers as any other answer,
 * and close the connection.
 */
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { errorReply, type Reply } from "./reply.js";

/** How long a closed-by-us connection may stay half-open, waiting for the client's FIN. */
const LINGER_MS = 2_000;

/** The answer to a `clientError`, by Node's error code. */
export function clientErrorReply(code: string | undefined): Reply {
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") {
    return errorReply("request_timeout", "the request did not arrive in time");
  }
  if (code === "HPE_HEADER_OVERFLOW") {
    return errorReply("headers_too_large", "the request headers are too large");
  }
  return errorReply("bad_request", "the request is not valid HTTP/1.1");
}

/**
 * Writes `reply` as a whole HTTP/1.1 response with `Connection: close`, then
 * ends the socket; one that the client keeps half-open is destroyed a little later.
 */
export function writeSocketAnswer(
  socket: Duplex,
  reply: Reply,
  limitHeaders: readonly string[],
  dateMs: number,
): void {
  const body = typeof reply.body === "string" ? Buffer.from(reply.body) : reply.body;
  let head = `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? ""}\r\n`;
  const headers = [
    "Content-Type",
    "application/json",
    "Content-Length",
    String(body.length),
    "Date",
    new Date(dateMs).toUTCString(),
    "Connection",
    "close",
    ...limitHeaders,
    ...(reply.headers ?? []),
  ];
  for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
  socket.end(Buffer.concat([Buffer.from(`${head}\r\n`, "latin1"), body]));
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
