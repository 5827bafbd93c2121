/**
 * undici's Pool on its own: the package's entry loads every part of undici
 * (fetch, WebSocket, caches, mocks), and loading them would cost the bulk add's
 * start-up more than the Pool itself does. undici has no `exports` map, so the
 * file may be required directly; its type is the one the entry declares.
 */
declare module "undici/lib/dispatcher/pool.js" {
  import type { Pool } from "undici";
  const PoolClass: typeof Pool;
  export default PoolClass;
}
