/**
 * Requests made ready in the same turn of the event loop leave together: first
 * `beforeWrite` (the results file's lines of that turn, so every `sending` line
 * reaches the file before its request leaves), then the requests, then
 * `afterWrite` (work that can wait for the answers: reading rows ahead). A
 * service that commits its writes in groups, as `petstore serve` does, also
 * gets them together. When `beforeWrite` says false (the lines could not be
 * written), the requests of that turn do not leave: each fails as not sent.
 */
import type { Transport, TransportResponse } from "../client/transport.js";
import { NetworkError } from "../errors.js";

export interface TurnHooks {
  beforeWrite?: () => boolean | void;
  afterWrite?: () => void;
}

export function inTurns(transport: Transport, hooks: TurnHooks): Transport {
  let waiting: Array<(go: boolean) => void> = [];
  const leave = () => {
    const group = waiting;
    waiting = [];
    const go = hooks.beforeWrite?.() !== false;
    for (const next of group) next(go);
    hooks.afterWrite?.();
  };
  return (request) =>
    new Promise<TransportResponse>((resolve, reject) => {
      if (waiting.length === 0) setImmediate(leave);
      waiting.push((go) => {
        if (!go) {
          const summary = { method: request.method, url: request.url };
          reject(new NetworkError("not sent: its line could not be written first", summary, false));
          return;
        }
        try {
          transport(request).then(resolve, reject);
        } catch (error) {
          reject(error as Error);
        }
      });
    });
}
