/**
 * How undici-dispatchers.ts (a bundle of its own, dist/undici.cjs) tells the
 * transport that the proxy failed before any tunnel was up: an error of this
 * code, as plain data, since an error class would not cross bundles.
 */
export const PROXY_FAILURE_CODE = "PETSTORE_PROXY_FAILURE";

export interface ProxyFailure extends Error {
  code: typeof PROXY_FAILURE_CODE;
  /** The proxy's answer to CONNECT when it was not 200. */
  status?: number;
  /** The code of the connection's error (ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET...). */
  causeCode?: string;
}

export function isProxyFailure(error: unknown): error is ProxyFailure {
  return (error as { code?: unknown } | null)?.code === PROXY_FAILURE_CODE;
}
