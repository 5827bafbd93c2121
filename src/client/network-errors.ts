/**
 * The one wording of a request that got no answer, for every transport (the
 * one-shot client's node:http and the bulk add's undici pool): what failed, and
 * whether the request may have reached the service (`sent`). Until the
 * connection is up (TLS included) no byte of the request can have arrived.
 */
import { NetworkError, TimeoutError, TlsError, type RequestSummary } from "../errors.js";
import { lastingDnsFailure } from "./dns.js";

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
  // A name that cannot resolve (ENOTFOUND, a placeholder host): not retried.
  const hostNotFound = connected ? undefined : lastingDnsFailure(code, summary, url);
  if (hostNotFound !== undefined) return hostNotFound;
  const notConnected = NOT_CONNECTED_CODES[code];
  if (notConnected !== undefined && !connected) {
    return new NetworkError(
      `could not connect to ${url.host}: ${notConnected}`,
      summary,
      false,
      CHECK_BASE_URL,
    );
  }
  if (RESET_CODES.has(code) || (code === "UND_ERR_SOCKET" && error.message === UNDICI_CLOSED)) {
    return new NetworkError(`${url.host} reset the connection`, summary, connected);
  }
  // Any other failure of an https request before the handshake completed is the TLS layer's.
  if (url.protocol === "https:" && !connected) {
    const message = `TLS connection to ${url.host} failed: ${error.message}`;
    if (LASTING_TLS_FAILURE.test(code)) {
      return new TlsError(
        message,
        summary,
        false,
        "check the host name in the base URL; for a certificate of a private authority, point NODE_EXTRA_CA_CERTS at that authority's certificate",
      );
    }
    return new NetworkError(message, summary, false);
  }
  // undici's codes (UND_ERR_...) say less than its messages ("bad response").
  const what = code === "" || code.startsWith("UND_ERR_") ? error.message : code;
  return new NetworkError(`request to ${url.host} failed: ${what}`, summary, connected);
}
