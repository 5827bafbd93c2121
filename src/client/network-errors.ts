/**
 * The one wording of a request that got no answer, for every transport (the
 * one-shot client's node:http and the bulk add's undici pool): what failed, and
 * whether the request may have reached the service (`sent`). Until the
 * connection is up (TLS included) no byte of the request can have arrived.
 */
import {
  HostNotFoundError,
  NetworkError,
  ProxyError,
  TimeoutError,
  TlsError,
  type RequestSummary,
} from "../errors.js";
import { isReservedHostName, type ProxyServer } from "./proxy-env.js";

/** The connection never came up: nothing was sent. */
const NOT_CONNECTED_CODES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ENETUNREACH: "network unreachable",
  EHOSTUNREACH: "host unreachable",
};

/** The peer closed or reset the connection. */
const RESET_CODES = new Set(["ECONNRESET", "EPIPE"]);
/** undici's words when the peer closed a connection it was reading from. */
const UNDICI_CLOSED = "other side closed";

/** OpenSSL's and Node's codes for a certificate or protocol another attempt would meet again. */
const LASTING_TLS_FAILURE = /CERT|SELF_SIGNED|ALTNAME|UNABLE_TO_(GET|VERIFY)|^ERR_SSL_|^ERR_TLS_/;

const CHECK_BASE_URL =
  "check the base URL (--base-url, PETSTORE_BASE_URL or the profile) and that the service is up";

/**
 * The HostNotFoundError for a lasting DNS failure, or undefined. ENOTFOUND is
 * the resolver's final answer (NXDOMAIN), so it is not retried. EAI_AGAIN means
 * the resolver could not answer now (a network that is down, a DNS timeout) and
 * is retried like a refused connection, except for a reserved name, where no
 * later answer can differ.
 */
export function lastingDnsFailure(
  code: string,
  summary: RequestSummary,
  url: URL,
): HostNotFoundError | undefined {
  const lasting =
    code === "ENOTFOUND" || (code === "EAI_AGAIN" && isReservedHostName(url.hostname));
  if (!lasting) return undefined;
  return new HostNotFoundError(
    `could not connect to ${url.host}: the host ${url.hostname} was not found (DNS ${code})`,
    summary,
    false,
    "check the host name in the base URL (--base-url, PETSTORE_BASE_URL or the profile)",
  );
}

export function timeoutError(
  summary: RequestSummary,
  url: URL,
  timeoutMs: number,
  connected: boolean,
): TimeoutError {
  const what = connected ? "no complete answer" : "could not connect";
  return new TimeoutError(
    `${what} from ${url.host} within ${timeoutMs / 1000} s`,
    summary,
    connected,
    "a slow service may need a longer --timeout",
  );
}

export function tooLargeError(summary: RequestSummary, url: URL, maxBytes: number): NetworkError {
  const limit = `${maxBytes / (1024 * 1024)} MiB`;
  return new NetworkError(`the answer from ${url.host} is larger than ${limit}`, summary, true);
}

export function cutShortError(summary: RequestSummary, url: URL): NetworkError {
  return new NetworkError(`${url.host} closed the connection mid-answer`, summary, true);
}

/**
 * `error` as a NetworkError (TlsError for a lasting TLS failure); `connected`
 * says whether the connection was up, so whether the request may have been sent.
 */
export function networkError(
  error: Error,
  summary: RequestSummary,
  url: URL,
  connected: boolean,
): NetworkError {
  const code = (error as NodeJS.ErrnoException).code ?? "";
  const hostNotFound = connected ? undefined : lastingDnsFailure(code, summary, url);
  if (hostNotFound !== undefined) return hostNotFound;
  const notConnected = NOT_CONNECTED_CODES[code];
  if (notConnected !== undefined && !connected) {
    const message = `could not connect to ${url.host}: ${notConnected}`;
    return new NetworkError(message, summary, false, CHECK_BASE_URL);
  }
  if (RESET_CODES.has(code) || (code === "UND_ERR_SOCKET" && error.message === UNDICI_CLOSED)) {
    return new NetworkError(`${url.host} reset the connection`, summary, connected);
  }
  // Any other failure of an https request before the handshake completed is the TLS layer's.
  if (url.protocol === "https:" && !connected) {
    const message = `TLS connection to ${url.host} failed: ${error.message}`;
    if (!LASTING_TLS_FAILURE.test(code)) return new NetworkError(message, summary, false);
    return new TlsError(
      message,
      summary,
      false,
      "check the host name in the base URL; for a certificate of a private authority, point NODE_EXTRA_CA_CERTS at that authority's certificate",
    );
  }
  // undici's codes (UND_ERR_...) say less than its messages ("bad response").
  const what = code === "" || code.startsWith("UND_ERR_") ? error.message : code;
  return new NetworkError(`request to ${url.host} failed: ${what}`, summary, connected);
}

export interface ProxyFailureFacts {
  message: string;
  /** The proxy's answer, when it gave one (to CONNECT, or a 407 to a plain request). */
  status?: number;
  causeCode?: string;
}

const PROXY_CLOSED = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);

/**
 * A proxy's failure, for both transports: it names the proxy (its URL never
 * holds the credentials, see proxy-env.ts) and the variable it came from, and
 * never the service, which nothing reached.
 */
export function proxyError(facts: ProxyFailureFacts, proxy: ProxyServer, target: URL): ProxyError {
  const where = `the proxy ${proxy.url} (from ${proxy.variable})`;
  const { status, causeCode = "" } = facts;
  let message = `could not connect to ${where}: ${facts.message}`;
  let hint = `check ${proxy.variable}; NO_PROXY lists the hosts to reach without a proxy`;
  if (status === 407 && proxy.authorization === undefined) {
    message = `${where} asks for credentials (407 Proxy Authentication Required)`;
    hint = `give them in ${proxy.variable}: http://user:password@host:port (%-encode any @ : / in them)`;
  } else if (status === 407) {
    message = `${where} refused the credentials (407 Proxy Authentication Required)`;
    hint = `check the user name and password in ${proxy.variable}`;
  } else if (status !== undefined) {
    const what = status >= 502 && status <= 504 ? "could not reach" : "refused a tunnel to";
    message = `${where} ${what} ${target.host} (it answered ${status} to CONNECT)`;
    hint = "ask whoever runs the proxy; NO_PROXY lists the hosts to reach without a proxy";
  } else if (causeCode === "ECONNREFUSED") {
    message = `could not connect to ${where}: connection refused`;
  } else if (causeCode === "ENOTFOUND" || causeCode === "EAI_AGAIN") {
    const host = new URL(proxy.url).hostname;
    message = `could not connect to ${where}: its host ${host} was not found (DNS ${causeCode})`;
  } else if (PROXY_CLOSED.has(causeCode)) {
    message = `${where} closed the connection before the request reached ${target.host}`;
  } else if (causeCode === "UND_ERR_CONNECT_TIMEOUT") {
    message = `could not connect to ${where} in time`;
  }
  return new ProxyError(message, proxy.url, hint);
}
