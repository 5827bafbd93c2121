/**
 * Whether a Secret Service answers on the D-Bus session, within a time limit.
 *
 * The native binding connects to D-Bus synchronously, on the main thread, with no
 * time limit: a bus that accepts the connection and never replies would hang the
 * command for good, and a thread left blocked in a native call keeps Node from
 * exiting at all (process.exit waits for it). So one call the Secret Service itself
 * must answer (ReadAlias "default", which never prompts) goes first, here, on the
 * event loop: the binding is used only once it has been answered. Hand-written
 * because a D-Bus library costs more to load than the whole keyring read may
 * (docs/configuration.md, "Where keys live"); this is one message each way.
 */
import { connect } from "node:net";

const align = (offset: number, to: number) => Math.ceil(offset / to) * to;

/** The socket of a D-Bus address (`unix:path=...` or `unix:abstract=...`), or undefined. */
export function busSocket(address: string): string | undefined {
  for (const entry of address.split(";")) {
    if (!entry.startsWith("unix:")) continue;
    const params = new Map(
      entry
        .slice("unix:".length)
        .split(",")
        .map((pair) => {
          const at = pair.indexOf("=");
          return [pair.slice(0, at), decodeURIComponent(pair.slice(at + 1))] as const;
        }),
    );
    const path = params.get("path");
    if (path !== undefined) return path;
    const abstract = params.get("abstract");
    if (abstract !== undefined) return `\0${abstract}`;
  }
  return undefined;
}

/** A method call in D-Bus's little-endian wire format; `args` are strings. */
function methodCall(
  serial: number,
  destination: string,
  path: string,
  iface: string,
  member: string,
  args: readonly string[] = [],
): Buffer {
  const bytes: number[] = [];
  const pad = (to: number) => {
    while (bytes.length % to !== 0) bytes.push(0);
  };
  const uint32 = (value: number) => bytes.push(...new Uint8Array(new Uint32Array([value]).buffer));
  const string = (text: string) => {
    pad(4);
    const encoded = Buffer.from(text);
    uint32(encoded.length);
    bytes.push(...encoded, 0);
  };
  const signature = (text: string) => bytes.push(text.length, ...Buffer.from(text), 0);
  const fields: [number, string, string][] = [
    [1, "o", path],
    [2, "s", iface],
    [3, "s", member],
    [6, "s", destination],
  ];
  if (args.length > 0) fields.push([8, "g", "s".repeat(args.length)]);
  for (const [code, type, value] of fields) {
    pad(8);
    bytes.push(code);
    signature(type);
    if (type === "g") signature(value);
    else string(value);
  }
  const fieldsLength = bytes.length;
  pad(8);
  const bodyStart = bytes.length;
  for (const arg of args) string(arg);
  const header = Buffer.alloc(16);
  // Little-endian, METHOD_CALL, no flags, version 1; body length, serial, fields length.
  header.set([0x6c, 1, 0, 1]);
  header.writeUInt32LE(bytes.length - bodyStart, 4);
  header.writeUInt32LE(serial, 8);
  header.writeUInt32LE(fieldsLength, 12);
  return Buffer.concat([header, Buffer.from(bytes)]);
}

interface Reply {
  replySerial?: number;
  errorName?: string;
  /** The bytes it takes. */
  length: number;
}

/** The first whole message in `data` (little-endian, as the bus sends to a client that wrote so), or undefined. */
function readMessage(data: Buffer): Reply | undefined {
  if (data.length < 16) return undefined;
  const fieldsEnd = 16 + data.readUInt32LE(12);
  const length = align(fieldsEnd, 8) + data.readUInt32LE(4);
  if (data.length < length) return undefined;
  const reply: Reply = { length };
  for (let at = 16; at < fieldsEnd;) {
    at = align(at, 8);
    const code = data[at]!;
    const type = data.toString("latin1", at + 2, at + 2 + data[at + 1]!);
    at += 3 + type.length;
    if (type === "g") {
      at += data[at]! + 2;
    } else if (type === "u") {
      at = align(at, 4);
      if (code === 5) reply.replySerial = data.readUInt32LE(at);
      at += 4;
    } else {
      at = align(at, 4);
      const size = data.readUInt32LE(at);
      if (code === 4) reply.errorName = data.toString("utf8", at + 4, at + 4 + size);
      at += 5 + size;
    }
  }
  return reply;
}

const PROBE_SERIAL = 2;

/**
 * Resolves when the Secret Service on the D-Bus session at `address` answers; rejects
 * with why not: no such service, the bus cannot be reached, or no answer within
 * `timeoutMs`. AUTH, BEGIN, Hello and the call go in one write (as sd-bus does), so the
 * probe costs one round trip, spent while the binding loads.
 */
export function probeSecretService(address: string, uid: number, timeoutMs: number): Promise<void> {
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
    socket.write(
      Buffer.concat([
        Buffer.from(`\0AUTH EXTERNAL ${Buffer.from(String(uid)).toString("hex")}\r\nBEGIN\r\n`),
        methodCall(
          1,
          "org.freedesktop.DBus",
          "/org/freedesktop/DBus",
          "org.freedesktop.DBus",
          "Hello",
        ),
        methodCall(
          PROBE_SERIAL,
          "org.freedesktop.secrets",
          "/org/freedesktop/secrets",
          "org.freedesktop.Secret.Service",
          "ReadAlias",
          ["default"],
        ),
      ]),
    );
    let data = Buffer.alloc(0);
    let authenticated = false;
    socket.on("data", (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      if (!authenticated) {
        const end = data.indexOf("\r\n");
        if (end === -1) return;
        const line = data.toString("latin1", 0, end);
        if (!line.startsWith("OK ")) {
          settle(new Error(`the D-Bus session refused this user (${line})`));
          return;
        }
        authenticated = true;
        data = data.subarray(end + 2);
      }
      for (let reply = readMessage(data); reply; reply = readMessage(data)) {
        data = data.subarray(reply.length);
        if (reply.replySerial === PROBE_SERIAL) {
          const { errorName } = reply;
          settle(
            errorName === undefined
              ? undefined
              : new Error(`no Secret Service on the D-Bus session (${errorName})`),
          );
          return;
        }
      }
    });
  });
}
