/**
 * Durable POST loads on a running serve, shared by the server-write and bulk-import phases.
 * Every load is bracketed by two single POSTs: the ids they get tell how many pets the load
 * really created (up to one request per connection is in flight when the tool stops).
 */
import { request } from "./http.mjs";
import { runLoad } from "./load.mjs";
import { cpuSeconds } from "./processes.mjs";
import { authHeaders } from "./serve.mjs";

export const POST_BODY = '{"name":"Rex","categoryId":1}';

/** One POST /pets; the new pet's id, as a BigInt (ids are int64). */
export async function createOne(server) {
  const response = await request("POST", `${server.baseUrl}/pets`, {
    headers: { ...authHeaders(), "content-type": "application/json" },
    body: POST_BODY,
  });
  const text = response.body.toString("utf8");
  const id = /"id"\s*:\s*(\d+)/.exec(text);
  if (response.status !== 201 || !id) {
    throw new Error(`POST /pets answered ${response.status}: ${text.slice(0, 120)}`);
  }
  return BigInt(id[1]);
}

/**
 * A POST load of `seconds` with `connections` connections, bracketed by two single POSTs.
 * `created`: pets the load really created; `serverCpu`: the server's CPU share over the load.
 */
export async function postLoad(server, { seconds, connections, scratchDir }) {
  const idBefore = await createOne(server);
  const cpuBefore = await cpuSeconds(server.pid);
  const result = await runLoad({
    origin: server.origin,
    path: `${server.basePath}/pets`,
    method: "POST",
    headers: authHeaders(),
    body: POST_BODY,
    connections,
    seconds,
    scratchDir,
  });
  const cpuAfter = await cpuSeconds(server.pid);
  const idAfter = await createOne(server);
  return {
    ...result,
    connections,
    created: Number(idAfter - idBefore - 1n),
    serverCpu: (cpuAfter - cpuBefore) / result.seconds,
    cpuUsPerRequest: ((cpuAfter - cpuBefore) * 1e6) / Math.max(1, result.requests),
  };
}
