/** A small HTTP client for the server tests: node:http, so every byte is under control. */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { parseJson, type JsonValue } from "../../src/schema/json.js";
import type { StartServerOptions } from "../../src/server/options.js";
import { startServer, type RunningServer } from "../../src/server/server.js";

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: () => JsonValue;
}

export interface Call {
  method?: string;
  key?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Default application/json when there is a body; null sends none. */
  contentType?: string | null;
}

/** `path` is absolute: `/v1/pets`, `/elsewhere`. */
export function call(baseUrl: string, path: string, options: Call = {}): Promise<Answer> {
  const url = new URL(baseUrl);
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  const contentType =
    options.contentType === undefined && options.body !== undefined
      ? "application/json"
      : options.contentType;
  if (typeof contentType === "string") headers["content-type"] = contentType;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
        port: url.port,
        method: options.method ?? (options.body === undefined ? "GET" : "POST"),
        path,
        headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: () => parseJson(text),
          });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** A quiet server on a free port whose log lines are collected. */
export async function startTestServer(
  options: StartServerOptions = {},
): Promise<RunningServer & { logText: () => string }> {
  let logged = "";
  const server = await startServer({
    quiet: true,
    log: { write: (text: string) => (logged += text) },
    ...options,
  });
  return Object.assign(server, { logText: () => logged });
}

/** A clock the test moves by hand. */
export function manualClock(startMs: number): {
  now: () => number;
  advance: (ms: number) => void;
  set: (ms: number) => void;
} {
  let nowMs = startMs;
  return {
    now: () => nowMs,
    advance: (ms) => {
      nowMs += ms;
    },
    set: (ms) => {
      nowMs = ms;
    },
  };
}
