/**
 * An in-process HTTP stub registry (the GitHub CLI's httpmock): each stub answers
 * one request (or `times` requests); `verify()` fails the test if a stub was
 * never used or if a request matched no stub.
 */
import type { Transport, TransportRequest } from "../../src/client/transport.js";

export interface StubAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

type Responder = StubAnswer | Error | ((request: TransportRequest) => StubAnswer | Error);

interface Stub {
  /** `GET /pets?limit=20`: method and path below the base URL. */
  route: string;
  respond: Responder;
  times: number;
  used: number;
}

export const RATE_LIMIT_HEADERS = {
  "x-ratelimit-limit": "60",
  "x-ratelimit-remaining": "59",
  "x-ratelimit-reset": "1924992000",
};

export function jsonAnswer(status: number, body: string, headers = {}): StubAnswer {
  return {
    status,
    headers: { "content-type": "application/json", ...RATE_LIMIT_HEADERS, ...headers },
    body,
  };
}

export function errorAnswer(status: number, code: string, message: string, headers = {}) {
  return jsonAnswer(status, JSON.stringify({ code, message, status }), headers);
}

export interface HttpStubs {
  on(route: string, respond: Responder, times?: number): HttpStubs;
  transport: Transport;
  /** Every request made, in order: `GET /pets?limit=20`. */
  readonly requests: TransportRequest[];
  routes(): string[];
  verify(): void;
}

export function createHttpStubs(baseUrl: string): HttpStubs {
  const stubs: Stub[] = [];
  const requests: TransportRequest[] = [];
  const unexpected: string[] = [];
  const routeOf = (request: TransportRequest) =>
    `${request.method} ${request.url.startsWith(baseUrl) ? request.url.slice(baseUrl.length) : request.url}`;
  const stubs_: HttpStubs = {
    on(route, respond, times = 1) {
      stubs.push({ route, respond, times, used: 0 });
      return stubs_;
    },
    async transport(request) {
      requests.push(request);
      const route = routeOf(request);
      const stub = stubs.find((s) => s.route === route && s.used < s.times);
      if (!stub) {
        unexpected.push(route);
        throw new Error(`no stub for ${route}`);
      }
      stub.used++;
      const answer = typeof stub.respond === "function" ? stub.respond(request) : stub.respond;
      if (answer instanceof Error) throw answer;
      return { status: answer.status, headers: answer.headers ?? {}, body: answer.body ?? "" };
    },
    requests,
    routes: () => requests.map(routeOf),
    verify() {
      const unused = stubs.filter((s) => s.used < s.times).map((s) => s.route);
      if (unexpected.length > 0) throw new Error(`unexpected requests: ${unexpected.join(", ")}`);
      if (unused.length > 0) throw new Error(`stubs never used: ${unused.join(", ")}`);
    },
  };
  return stubs_;
}
