/**
 * Requests made ready in the same turn of the event loop leave together: first
 * `beforeWrite` (the results file's lines of that turn, so every `sending` line
 * reaches the file before its request leaves), then the requests, then
 * `afterWrite` (work that can wait for the answers: reading rows ahead). A
 * service that commits its writes in groups, as `petstore serve` does, also
 * gets them together.
 */
import type { Transport, TransportResponse } from "../client/transport.js";

export interface TurnHooks {
  beforeWrite?: () => void;
  afterWrite?: () => void;
}

export function inTurns(transport: Transport, hooks: TurnHooks): Transport {
  let waiting: Array<() => void> = [];
  const leave = () => {
    const group = waiting;
    waiting = [];
    hooks.beforeWrite?.();
    for (const go of group) go();
    hooks.afterWrite?.();
  };
  return (request) =>
    new Promise<TransportResponse>((resolve, reject) => {
      if (waiting.length === 0) setImmediate(leave);
      waiting.push(() => {
        try {
          transport(request).then(resolve, reject);
        } catch (error) {
          reject(error as Error);
        }
      });
    });
}
