/**
 * The one seam between `send` and the network: one request in, one answer out,
 * any status. Tests replace it with an in-process stub; the real ones are
 * ./node-transport.ts (the one-shot commands) and ../bulk/pool-transport.ts
 * (the bulk add, on undici).
 *
 * A transport that cannot get an answer throws a `NetworkError` (or
 * `TimeoutError`) whose `sent` says whether the request may have reached the
 * service. Another PetstoreError (a UsageError) says it refused to send the
 * request at all; anything else it throws is treated as "may have been sent".
 */
export interface TransportRequest {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

export interface TransportResponse {
  status: number;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  body: string;
}

export type Transport = (request: TransportRequest) => Promise<TransportResponse>;
