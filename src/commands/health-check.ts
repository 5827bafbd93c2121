/**
 * `petstore serve --health-check`: one GET of a running fake's /__admin/health
 * (and `petstore verdict`'s of /__admin/verdict),
 * with the admin token when there is one. Exit 0 and the answer on stdout when it
 * is ok; otherwise the fake's own words and the exit code of the same failure
 * elsewhere in the CLI: 3 for a token refused, 4 for a control plane that is off,
 * 6 for no answer or a 5xx.
 */
import { nodeTransport } from "../client/transport.js";
import { EXIT, PetstoreError } from "../errors.js";

/** Below the 30 s a container engine gives a health check by default. */
const TIMEOUT_MS = 10_000;

/** The `message` of the fake's Error body, else the body as it came. */
function reason(body: string): string {
  try {
    const { message } = JSON.parse(body) as { message?: unknown };
    if (typeof message === "string") return message;
  } catch {
    // Not JSON: not the fake's answer, shown as it is.
  }
  return body.slice(0, 200);
}

/** A GET of the fake's control plane (`petstore verdict` too): the body of its 200. */
export async function getAdmin(
  url: string,
  token: string | undefined,
  hint = "is the fake started, on this --port?",
): Promise<string> {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const request = { method: "GET" as const, url, headers, timeoutMs: TIMEOUT_MS };
  const { status, body } = await nodeTransport()(request).catch((error: unknown) => {
    if (!(error instanceof PetstoreError)) throw error;
    // The transport's hint is about a base URL, which this check does not take.
    throw new PetstoreError(error.message, error.exitCode, hint);
  });
  if (status !== 200) {
    const exitCode = status === 401 ? EXIT.AUTH : status === 404 ? EXIT.NOT_FOUND : EXIT.NETWORK;
    throw new PetstoreError(`${url} answered ${status}: ${reason(body)}`, exitCode);
  }
  return body;
}
