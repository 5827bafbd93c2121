/**
 * Thousands of malformed requests over raw sockets (seeded, so a failure
 * repeats): every answer that comes back is a well-formed HTTP/1.1 response,
 * never a 5xx, with the rate-limit headers, and every error answer is the Error
 * body with `status` equal to the HTTP status. Meanwhile a normal GET, sent every
 * 10 ms, is answered 200 every time.
 *
 * How fast that GET stays is a speed goal, so it is in the bench (the
 * fuzz-latency phase, with this file's generator), not here.
 */
import fc from "fast-check";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/schema/error-codes.js";
import { createMemoryStore } from "../../src/server/store/memory.js";
import { demoPets } from "../../src/server/demo-pets.js";
import { call, startTestServer } from "./http.js";
import { malformedRequests, type RawRequest } from "./malformed-requests.js";

const KEY = "fuzz-sockets-key";
const FREE_KEY = "fuzz-sockets-free";
const SEED = 20_261_123;
const REQUESTS = 3_000;
const CONCURRENCY = 4;
/** A client gives up on an answer after this long (the fake's own timeouts are shorter). */
const CLIENT_TIMEOUT_MS = 5_000;
const PROBE_EVERY_MS = 10;

let server: Awaited<ReturnType<typeof startTestServer>>;

beforeAll(async () => {
  server = await startTestServer({
    keys: [`${KEY}:enterprise`, `${FREE_KEY}:free`],
    store: createMemoryStore(demoPets(50)),
    timeouts: { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000, checkIntervalMs: 100 },
  });
});
afterAll(() => server.close());

/** Writes the request, half-closes, and collects everything until the fake closes. */
function exchange(request: RawRequest): Promise<Buffer> {
  return new Promise((resolve) => {
    const socket = connect(server.port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), CLIENT_TIMEOUT_MS);
    socket.on("data", (data: Buffer) => chunks.push(data));
    // The fake may close before reading everything (413, 400): writes then fail.
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    socket.cork();
    for (const part of request.parts) socket.write(part);
    socket.end();
    socket.uncork();
  });
}

interface Answer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Splits what came back into responses; throws on anything that is not HTTP/1.1. */
function parseAnswers(received: Buffer, firstIsHead: boolean): Answer[] {
  const answers: Answer[] = [];
  let at = 0;
  while (at < received.length) {
    const end = received.indexOf("\r\n\r\n", at);
    if (end === -1) throw new Error(`an unterminated response head at byte ${at}`);
    const [statusLine = "", ...lines] = received.toString("latin1", at, end).split("\r\n");
    const match = /^HTTP\/1\.1 (\d{3}) [^\r\n]*$/.exec(statusLine);
    if (match === null) throw new Error(`not a status line: ${JSON.stringify(statusLine)}`);
    const headers = new Map<string, string>();
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
    }
    const status = Number(match[1]);
    at = end + 4;
    if (status >= 100 && status < 200) continue;
    // The answer to a HEAD has no body, unless the fake never read it as a HEAD (400).
    const bodyless =
      firstIsHead &&
      answers.length === 0 &&
      (at === received.length || received.toString("latin1", at, at + 9) === "HTTP/1.1 ");
    const bodyLength = bodyless ? 0 : Number(headers.get("content-length") ?? NaN);
    if (!Number.isInteger(bodyLength)) throw new Error(`a ${status} without Content-Length`);
    answers.push({ status, headers, body: received.toString("utf8", at, at + bodyLength) });
    at += bodyLength;
  }
  return answers;
}

/** Problems with one answer; none when it is fine. */
function problemsOf(answer: Answer, head: boolean): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`status ${answer.status}`);
  for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) {
    if (!answer.headers.has(name)) problems.push(`no ${name}`);
  }
  if (answer.headers.get("content-type") !== "application/json") {
    problems.push(`Content-Type ${answer.headers.get("content-type")}`);
  }
  if (answer.status < 400 || head) return problems;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return [...problems, `a body that is not JSON: ${JSON.stringify(answer.body.slice(0, 100))}`];
  }
  const { code, message, status, ...rest } = body as Record<string, unknown>;
  const known = ERROR_CODES[code as keyof typeof ERROR_CODES] as { status: number } | undefined;
  if (known?.status !== answer.status) problems.push(`code ${String(code)}`);
  if (typeof message !== "string" || message === "") problems.push("no message");
  if (status !== answer.status) problems.push(`body status ${String(status)}`);
  if (Object.keys(rest).length > 0) problems.push(`extra fields ${Object.keys(rest).join(", ")}`);
  return problems;
}

describe("fuzzing the fake over raw sockets", () => {
  it(`answers ${REQUESTS} malformed requests with Error bodies, no 5xx, while a normal GET is answered`, async () => {
    const requests = fc.sample(malformedRequests(KEY, FREE_KEY), { seed: SEED, numRuns: REQUESTS });
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const unanswered: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < requests.length && failures.length < 10) {
        const request = requests[next++]!;
        const received = await exchange(request);
        let answers: Answer[];
        try {
          answers = parseAnswers(received, request.head);
        } catch (error) {
          failures.push(`${request.label}: ${(error as Error).message}`);
          continue;
        }
        if (answers.length === 0 && request.complete) unanswered.push(request.label);
        for (const answer of answers) {
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          const problems = problemsOf(answer, request.head && answer.body === "");
          if (problems.length > 0) failures.push(`${request.label}: ${problems.join("; ")}`);
        }
      }
    };

    // A normal GET every PROBE_EVERY_MS while the fuzz runs: each is answered, and 200.
    let fuzzing = true;
    let probes = 0;
    const probeStatuses = new Set<number>();
    const probe = async () => {
      while (fuzzing) {
        await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
        const answer = await call(server.url, "/v1/pets?limit=1", { key: KEY });
        probeStatuses.add(answer.status);
        probes++;
      }
    };
    const probing = probe();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    fuzzing = false;
    await probing;

    expect(failures).toEqual([]);
    // A fully framed request is always answered.
    expect(unanswered).toEqual([]);
    // The mix reached the parser, the validator and the store, not only the HTTP layer.
    expect([...statuses.keys()]).toEqual(
      expect.arrayContaining([200, 201, 400, 401, 404, 405, 413, 415, 417, 429, 431]),
    );
    expect(probeStatuses).toEqual(new Set([200]));
    expect(probes).toBeGreaterThan(20);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
