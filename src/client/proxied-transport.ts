/**
 * The one-shot commands' transport behind a proxy: undici's ProxyAgent (the
 * tunnel code the bulk add uses too), loaded from dist/undici.cjs on the first
 * request, so that a run without a proxy never loads undici (see
 * node-transport.ts for why). One agent per request, destroyed after it, as
 * node-transport.ts uses no connection twice: nothing is left open to keep the
 * process alive.
 */
import type { ProxyServer } from "./proxy-env.js";
import type { Transport } from "./transport.js";
import { dispatcherTransport } from "./undici-transport.js";
import { MAX_RESPONSE_BYTES } from "./node-transport.js";

export function proxiedTransport(proxy: ProxyServer): Transport {
  return async (request) => {
    const { createProxyAgent } = await import("./undici-dispatchers.js");
    const agent = createProxyAgent(proxy, { connections: 1, timeoutMs: request.timeoutMs });
    const { origin } = new URL(request.url);
    try {
      return await dispatcherTransport(agent, { origin, maxBytes: MAX_RESPONSE_BYTES, proxy })(
        request,
      );
    } finally {
      agent.destroy().catch(() => {});
    }
  };
}
