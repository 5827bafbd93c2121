/**
 * One answer of the service as the client saw it. Its own file, below the client and
 * errors.ts alike: an HttpError carries the answer, and the client builds it, so
 * neither side imports the other (docs/design.md, "Layout and dependency rules").
 */

/** From the X-RateLimit-* headers of one response (see client/headers.ts). */
export interface RateLimitInfo {
  limit: number;
  remaining: number;
  /** Unix time in milliseconds at which the window resets. */
  resetAt: number;
}

export interface HttpResponse {
  status: number;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  body: string;
  rateLimit?: RateLimitInfo;
  /** Wall time of this attempt. */
  durationMs: number;
}
