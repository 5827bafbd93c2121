/**
 * The requests node:http never hands to the request handler: CONNECT (the fake
 * is not a proxy: 405) and malformed or too slow requests (`clientError`). Their
 * answers are written straight to the socket (socket-answer.ts) and carry the
 * rate-limit and CORS headers as every other answer does; a CONNECT is counted
 * against its client's quota and recorded in the request journal.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { FakeClock } from "./admin/clock.js";
import { JournalEntry } from "./admin/request-journal.js";
import type { Keyring } from "./auth.js";
import type { Cors } from "./cors.js";
import type { RequestLimiter } from "./limiter.js";
import { errorReply } from "./reply.js";
import type { Responder } from "./responder.js";
import { clientErrorReply, writeSocketAnswer } from "./socket-answer.js";
import { ALL_METHODS } from "./v1-routes.js";

export interface SocketParts {
  keyring: Keyring;
  limiter: RequestLimiter;
  cors: Cors;
  clock: FakeClock;
  responder: Responder;
}

export interface SocketHandlers {
  /** For `server.on("connect")`: CONNECT gets a 405 Error body; the fake is not a proxy. */
  handleConnect(req: IncomingMessage, socket: Duplex): void;
  /** For `server.on("clientError")`: malformed or too slow requests get an Error body too. */
  handleClientError(error: Error & { code?: string }, socket: Duplex): void;
}

export function createSocketHandlers(parts: SocketParts): SocketHandlers {
  const { keyring, limiter, cors, clock, responder } = parts;

  function handleConnect(req: IncomingMessage, socket: Duplex): void {
    // node:http hands the socket over without its error listener.
    socket.on("error", () => socket.destroy());
    const startedAt = responder.startedAt();
    const nowMs = clock.now();
    const identity = keyring.identify(req.headers.authorization);
    const limit = limiter.check(identity, req.socket.remoteAddress, nowMs, true);
    const reply =
      limit.refusal ??
      errorReply("method_not_allowed", "CONNECT is not allowed: the fake is not a proxy", [
        "Allow",
        ALL_METHODS,
      ]);
    const headers = [...limit.headers, ...cors.headers(req.headers.origin)];
    writeSocketAnswer(socket, reply, headers, nowMs);
    responder.answered(req, reply.status, startedAt);
    if (responder.journaling) {
      const target = req.url ?? "";
      const plan = typeof identity === "object" ? identity.plan : null;
      const journal = responder.journal;
      journal.begin(req, new JournalEntry(nowMs, "CONNECT", target, target.length, plan));
      journal.finish(req, reply.status, performance.now() - startedAt);
    }
  }

  function handleClientError(error: Error & { code?: string }, socket: Duplex): void {
    const started = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || started?.headersSent === true) {
      socket.destroy();
      return;
    }
    // A request already read (its body is broken) has a known key; garbage has only an address.
    const authorization = started?.req?.headers.authorization;
    const address = (socket as Duplex & { remoteAddress?: string }).remoteAddress;
    const nowMs = clock.now();
    const limit = limiter.check(keyring.identify(authorization), address, nowMs, false);
    const reply = clientErrorReply(error.code);
    const origin = started?.req?.headers.origin;
    writeSocketAnswer(socket, reply, [...limit.headers, ...cors.headers(origin)], nowMs);
    responder.answeredMalformed(reply.status, error.code ?? error.message);
  }

  return { handleConnect, handleClientError };
}
