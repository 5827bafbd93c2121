/**
 * How a command's requests reach the base URL (client/proxy-env.ts decides), for
 * the one-shot client (factory.ts) and the bulk add (add-from.ts) alike. A proxy
 * variable that cannot be used stops the command here, before any request;
 * with --verbose a line on stderr says which proxy, or why none.
 */
import { describeRoute, proxyRoute, type ProxyRoute } from "../client/proxy-env.js";
import type { OutputStream } from "../io.js";
import { parseBaseUrl } from "../profiles/environments.js";

/** Undefined for a base URL that is not one (the client refuses it with its own words). */
export function routeTo(
  baseUrl: string,
  env: NodeJS.ProcessEnv,
  verbose: OutputStream | undefined,
): ProxyRoute | undefined {
  const base = parseBaseUrl(baseUrl);
  if (!base.ok) return undefined;
  const target = new URL(base.url);
  const route = proxyRoute(target, env);
  const line = verbose && describeRoute(route, target);
  if (line) verbose!.write(`proxy: ${line}\n`);
  return route;
}
