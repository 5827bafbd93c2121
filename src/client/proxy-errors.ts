/**
 * The wording of a proxy's failure, for both transports: it names the proxy
 * (its URL never holds the credentials, see proxy-env.ts) and the variable it
 * came from, and never the service, which nothing reached.
 */
import { ProxyError } from "../errors.js";
import type { ProxyServer } from "./proxy-env.js";

export interface ProxyFailureFacts {
  message: string;
  /** The proxy's answer, when it gave one (to CONNECT, or a 407 to a plain request). */
  status?: number;
  causeCode?: string;
}

const CLOSED = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);
const NOT_FOUND = new Set(["ENOTFOUND", "EAI_AGAIN"]);

export function proxyError(facts: ProxyFailureFacts, proxy: ProxyServer, target: URL): ProxyError {
  const where = `the proxy ${proxy.url} (from ${proxy.variable})`;
  const checkVariable = `check ${proxy.variable}; NO_PROXY lists the hosts to reach without a proxy`;
  const { status, causeCode } = facts;
  if (status === 407) {
    return proxy.authorization === undefined
      ? new ProxyError(
          `${where} asks for credentials (407 Proxy Authentication Required)`,
          proxy.url,
          `give them in ${proxy.variable}: http://user:password@host:port (%-encode any @ : / in them)`,
        )
      : new ProxyError(
          `${where} refused the credentials (407 Proxy Authentication Required)`,
          proxy.url,
          `check the user name and password in ${proxy.variable}`,
        );
  }
  if (status !== undefined) {
    const what = status >= 502 && status <= 504 ? "could not reach" : "refused a tunnel to";
    return new ProxyError(
      `${where} ${what} ${target.host} (it answered ${status} to CONNECT)`,
      proxy.url,
      "ask whoever runs the proxy; NO_PROXY lists the hosts to reach without a proxy",
    );
  }
  if (causeCode === "ECONNREFUSED") {
    return new ProxyError(
      `could not connect to ${where}: connection refused`,
      proxy.url,
      checkVariable,
    );
  }
  if (causeCode !== undefined && NOT_FOUND.has(causeCode)) {
    const host = new URL(proxy.url).hostname;
    return new ProxyError(
      `could not connect to ${where}: its host ${host} was not found (DNS ${causeCode})`,
      proxy.url,
      checkVariable,
    );
  }
  if (causeCode !== undefined && CLOSED.has(causeCode)) {
    return new ProxyError(
      `${where} closed the connection before the request reached ${target.host}`,
      proxy.url,
      checkVariable,
    );
  }
  if (causeCode === "UND_ERR_CONNECT_TIMEOUT") {
    return new ProxyError(`could not connect to ${where} in time`, proxy.url, checkVariable);
  }
  return new ProxyError(
    `could not connect to ${where}: ${facts.message}`,
    proxy.url,
    checkVariable,
  );
}
