/**
 * undici's dispatchers on their own: the package's entry loads every part of
 * undici (fetch, WebSocket, caches, mocks), and loading them would cost more
 * than the dispatchers themselves. undici has no `exports` map, so the files may
 * be required directly; their types are the ones the entry declares.
 */
declare module "undici/lib/dispatcher/pool.js" {
  import type { Pool } from "undici";
  const PoolClass: typeof Pool;
  export default PoolClass;
}

declare module "undici/lib/dispatcher/proxy-agent.js" {
  import type { ProxyAgent } from "undici";
  const ProxyAgentClass: typeof ProxyAgent;
  export default ProxyAgentClass;
}

/** `Dispatcher#connect`, which undici's entry adds to every dispatcher; called as `connect.call(pool, options)`. */
declare module "undici/lib/api/api-connect.js" {
  import type { Dispatcher } from "undici";
  function connect(
    this: Dispatcher,
    options: Dispatcher.ConnectOptions,
  ): Promise<Dispatcher.ConnectData>;
  export default connect;
}
