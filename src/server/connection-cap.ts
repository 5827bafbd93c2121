/**
 * A cap on open connections that keeps the fake reachable. `server.maxConnections`
 * is the hard limit (node:http drops a connection past it); before it is
 * reached, idle connections (no request in flight: kept-alive ones, and ones
 * that have not finished sending a request) are closed, the longest idle first,
 * so a new client finds room while idle sockets pile up. Connections with a
 * request in flight are never closed for room. Over TLS, a connection is its raw
 * socket until the handshake is done (idle, so it may be closed for room), and
 * then the TLS socket that carries its requests.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { readFileSync } from "node:fs";
import type { Server, Socket } from "node:net";

export const MAX_CONNECTIONS_LIMIT = 1_000_000;

/**
 * 1,000, or fewer when the process may open fewer files (Linux's
 * /proc/self/limits; elsewhere 1,000): a connection past the descriptor limit
 * fails to be accepted, which no idle-closing would cure.
 */
export function defaultMaxConnections(limitsText?: string): number {
  try {
    limitsText ??= readFileSync("/proc/self/limits", "utf8");
  } catch {
    limitsText = "";
  }
  const files = Number(/^Max open files\s+(\d+)/m.exec(limitsText)?.[1] ?? Infinity);
  // 64 descriptors are kept for everything but client connections: stdio, the store's files, Node's own.
  return Math.max(1, Math.min(1000, files - 64));
}

/** node:http sets `_httpMessage` from a request's arrival until its response is sent. */
type BusySocket = Socket & { _httpMessage?: ServerResponse | null };

/**
 * Applies the cap to `server`. Idle connections are
 * closed once more than `cap` minus a tenth of it (at least one) are open: the
 * rest is room for the connections accepted in one burst, before closed ones are
 * counted off.
 */
export function capConnections(server: Server, cap: number, note: (line: string) => void) {
  server.maxConnections = cap;
  const highWater = cap - Math.max(1, Math.floor(cap / 10));
  /** Open connections, least recently active first. */
  const open = new Set<Socket>();
  /** Idle connections closed to make room; new ones node:http dropped because the cap was reached anyway. */
  const stats = { evicted: 0, dropped: 0 };
  let notedDropsAt = -Infinity;

  const track = (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
  };
  server.on("connection", (socket: Socket) => {
    track(socket);
    for (const idle of open) {
      if (open.size <= highWater) break;
      if (idle === socket || (idle as BusySocket)._httpMessage != null) continue;
      open.delete(idle);
      idle.destroy();
      stats.evicted++;
    }
  });
  // Over TLS, the connection is its TLS socket once the handshake is done; a TLS socket
  // names the raw socket it wraps as `_parent`.
  server.on("secureConnection", (socket: Socket & { _parent?: Socket }) => {
    if (socket._parent !== undefined && open.delete(socket._parent)) track(socket);
  });
  server.on("request", (req: IncomingMessage) => {
    // Re-inserted: the set stays ordered by last activity.
    if (open.delete(req.socket)) open.add(req.socket);
  });
  server.on("drop", () => {
    stats.dropped++;
    const now = performance.now();
    if (now - notedDropsAt >= 10_000) {
      notedDropsAt = now;
      note(
        `connection cap of ${cap} reached with every connection busy: new connections are dropped`,
      );
    }
  });
  return () => ({ ...stats });
}
