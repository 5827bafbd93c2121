/**
 * Whether the D-Bus session answers, within a time limit.
 *
 * The native binding connects to D-Bus synchronously, on the main thread, and
 * libdbus gives that handshake no time limit: a bus that accepts the connection
 * and never replies would hang the command for good, and a thread left blocked in
 * a native call keeps Node from exiting at all (process.exit waits for it). Every
 * call after the handshake has libdbus's own limit (2 s: a Secret Service that
 * hangs fails with "Did not receive a reply"). So the handshake goes first, here,
 * on the event loop: the binding connects only once the bus has answered it.
 * Hand-written because a D-Bus library costs more to load than the whole keyring
 * read may (docs/configuration.md, "Where keys live"); this is one line each way.
 */
import { connect } from "node:net";

/**
 * The socket of a D-Bus address (`unix:path=...` or `unix:abstract=...`, the first
 * such entry of a `;`-separated list; values %-encoded), or undefined.
 */
export function busSocket(address: string): string | undefined {
  const [, kind, value] = /(?:^|;)unix:(?:[^;]*,)?(path|abstract)=([^,;]*)/.exec(address) ?? [];
  if (value === undefined) return undefined;
  return (kind === "abstract" ? "\0" : "") + decodeURIComponent(value);
}

/**
 * Resolves once the session bus at `address` accepts this user (`AUTH EXTERNAL`,
 * as libdbus opens); rejects with why not: the bus cannot be reached, refuses
 * the user, or does not answer within `timeoutMs`.
 */
export function probeSessionBus(address: string, uid: number, timeoutMs: number): Promise<void> {
  const path = busSocket(address);
  if (path === undefined) {
    return Promise.reject(new Error(`the D-Bus address ${address} is not a unix socket`));
  }
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer from the D-Bus session within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    const settle = (error?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve();
    };
    socket.on("error", (error: NodeJS.ErrnoException) =>
      settle(new Error(`the D-Bus session cannot be reached (${error.code ?? error.message})`)),
    );
    socket.write(`\0AUTH EXTERNAL ${Buffer.from(String(uid)).toString("hex")}\r\n`);
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
      const end = answer.indexOf("\r\n");
      if (end === -1) return;
      const line = answer.slice(0, end);
      settle(
        line.startsWith("OK ")
          ? undefined
          : new Error(`the D-Bus session refused this user (${line})`),
      );
    });
  });
}
